set(SOURCES
  ${AREA_DIR}/build_info.cpp
  ${AREA_DIR}/app_config.cpp
)
