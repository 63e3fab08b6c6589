# Deployment creation shared by POST /deployments and schedule events (no HTTP here).
set(SOURCES
  ${AREA_DIR}/new_deployment.cpp
)
