set(TEST_SOURCES
  ${TEST_DIR}/pg_pool_test.cpp
  ${TEST_DIR}/migrations_test.cpp
)
list(APPEND TEST_SOURCES ${TEST_DIR}/schedule_store_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/site_history_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/deployment_list_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/purge_deleted_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/attempts_store_test.cpp)
list(APPEND TEST_SOURCES ${TEST_DIR}/pg_store_contract_test.cpp)
set(TEST_LIBS orch_test_fakes)
