set(SOURCES
  ${AREA_DIR}/build_info.cpp
)
