set(TEST_SOURCES
  ${TEST_DIR}/cmdb_http_test.cpp
  ${TEST_DIR}/fedreg_contract_test.cpp
)
set(TEST_LIBS deps::boost)
