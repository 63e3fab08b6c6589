# Connector tests drive the real simulators in-process through a fake http::Client (no sockets).
set(TEST_SOURCES
  ${TEST_DIR}/common_test.cpp
  ${TEST_DIR}/marathon_connector_test.cpp
  ${TEST_DIR}/chronos_connector_test.cpp
  ${TEST_DIR}/kubernetes_connector_test.cpp
  ${TEST_DIR}/kubernetes_helm_test.cpp
  ${TEST_DIR}/kubernetes_scale_test.cpp
  ${TEST_DIR}/slurm_job_test.cpp
  ${TEST_DIR}/im_connector_test.cpp
  ${TEST_DIR}/im_corpus_test.cpp
  ${TEST_DIR}/im_scale_test.cpp
  ${TEST_DIR}/im_template_fill_test.cpp
)
set(TEST_LIBS orch::sim deps::yaml)
