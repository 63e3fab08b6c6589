set(SOURCES
  ${AREA_DIR}/attempt.cpp
  ${AREA_DIR}/deployment.cpp
  ${AREA_DIR}/event.cpp
)
