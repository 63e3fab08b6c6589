set(SOURCES
  ${AREA_DIR}/attempt.cpp
  ${AREA_DIR}/deployment.cpp
  ${AREA_DIR}/event.cpp
)
list(APPEND SOURCES ${AREA_DIR}/iso_time.cpp)
