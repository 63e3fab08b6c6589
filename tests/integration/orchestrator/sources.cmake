set(TEST_SOURCES
  ${TEST_DIR}/pg_pool_test.cpp
  ${TEST_DIR}/migrations_test.cpp
)
