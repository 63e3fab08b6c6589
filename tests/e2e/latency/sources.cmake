# Latency a user sees (issue 19): CREATE_COMPLETE within 1 s of the POST, within 0.5 s of the
# site reporting ready, a crash loop failed within seconds, the trace on every line. They measure
# wall time, so they run alone (RUN_SERIAL): in session 12's clean-clone CI the 1-s case took
# 1.03 s beside the parallel e2e tests and the background ASan build, and passed in 1.5-1.7 s
# runs alone on the same loaded machine.
set(TEST_SOURCES
  ${TEST_DIR}/progress_e2e_test.cpp
  ${TEST_DIR}/prompt_completion_e2e_test.cpp
)
set(TEST_LIBS orch_rig_sites)
set(TEST_RUN_SERIAL ON)
