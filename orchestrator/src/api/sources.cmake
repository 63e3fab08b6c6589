set(SOURCES
  ${AREA_DIR}/system_routes.cpp
)
