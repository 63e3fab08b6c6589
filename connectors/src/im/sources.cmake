# Infrastructure Manager connector (VMs and their software through IM) and the VM router.
set(SOURCES
  ${AREA_DIR}/im_api.cpp
  ${AREA_DIR}/im_auth.cpp
  ${AREA_DIR}/im_connector.cpp
  ${AREA_DIR}/im_observe.cpp
  ${AREA_DIR}/im_router.cpp
  ${AREA_DIR}/im_template.cpp
)
