set(TEST_SOURCES
  ${TEST_DIR}/indigo_ranker_test.cpp
  ${TEST_DIR}/scenario_test.cpp
  ${TEST_DIR}/filters_test.cpp
  ${TEST_DIR}/quota_test.cpp
  ${TEST_DIR}/ranking_test.cpp
  ${TEST_DIR}/decision_config_test.cpp
  ${TEST_DIR}/flavor_index_test.cpp
  ${TEST_DIR}/site_universe_test.cpp
  ${TEST_DIR}/corpus_routing_test.cpp
  ${TEST_DIR}/verdict_lifetime_test.cpp
  ${TEST_DIR}/text_pool_test.cpp
  ${TEST_DIR}/im_sites_test.cpp
)
list(APPEND TEST_SOURCES ${TEST_DIR}/candidate_json_test.cpp)
set(TEST_LIBS orch::orchestrator orch::tosca_check_command)
