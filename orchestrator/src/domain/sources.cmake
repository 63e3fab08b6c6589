set(SOURCES
  ${AREA_DIR}/deployment.cpp
)
