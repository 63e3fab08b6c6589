set(SOURCES
  ${AREA_DIR}/admission.cpp
  ${AREA_DIR}/admission_queue.cpp
  ${AREA_DIR}/admission_cycle.cpp
  ${AREA_DIR}/admission_cohorts.cpp
  ${AREA_DIR}/admission_cycle_inputs.cpp
  ${AREA_DIR}/candidate_codec.cpp
  ${AREA_DIR}/engine.cpp
  ${AREA_DIR}/fair_share.cpp
  ${AREA_DIR}/queue_position.cpp
  ${AREA_DIR}/job_kind.cpp
  ${AREA_DIR}/steps_common.cpp
  ${AREA_DIR}/create_steps.cpp
  ${AREA_DIR}/place_step.cpp
  ${AREA_DIR}/sla_moves.cpp
  ${AREA_DIR}/provider_tries.cpp
  ${AREA_DIR}/create_attempt.cpp
  ${AREA_DIR}/delete_steps.cpp
  ${AREA_DIR}/self_heal_steps.cpp
  ${AREA_DIR}/change_steps.cpp
  ${AREA_DIR}/deployment_steps.cpp
  ${AREA_DIR}/callback_deliverer.cpp
  ${AREA_DIR}/progress.cpp
  ${AREA_DIR}/elastic_policy.cpp
  ${AREA_DIR}/elastic_template.cpp
  ${AREA_DIR}/idle_policy.cpp
  ${AREA_DIR}/idle_reclaimer.cpp
)
list(APPEND SOURCES ${AREA_DIR}/tosca_template_service.cpp)
list(APPEND SOURCES ${AREA_DIR}/caching_template_service.cpp)
list(APPEND SOURCES ${AREA_DIR}/lease_store.cpp ${AREA_DIR}/lease_sweep.cpp ${AREA_DIR}/lease_policy.cpp)
list(APPEND SOURCES ${AREA_DIR}/site_version_cache.cpp)
list(APPEND SOURCES ${AREA_DIR}/iam_clients.cpp ${AREA_DIR}/iam_client_steps.cpp ${AREA_DIR}/iam_client_sweep.cpp)
list(APPEND SOURCES ${AREA_DIR}/site_watcher.cpp)
