set(SOURCES
  ${AREA_DIR}/kubernetes_schedule.cpp
  ${AREA_DIR}/helm_release.cpp
  ${AREA_DIR}/kubernetes_manifests.cpp
  ${AREA_DIR}/kubernetes_poll.cpp
  ${AREA_DIR}/kubernetes_actions.cpp
  ${AREA_DIR}/kubernetes_connector.cpp
)
