set(TEST_SOURCES
  ${TEST_DIR}/cmdb_test.cpp
  ${TEST_DIR}/sla_test.cpp
  ${TEST_DIR}/sla_cache_test.cpp
)
