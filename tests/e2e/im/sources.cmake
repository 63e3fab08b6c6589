# e2e tier through IM: the real orchestrator binary and PostgreSQL, a site-sim whose IM simulator
# serves the catalogue's OpenStack sites, and the corpus target=IM templates.
set(TEST_SOURCES
  ${TEST_DIR}/im_e2e_test.cpp
)
set(TEST_LIBS orch_rig_sites deps::yaml)
