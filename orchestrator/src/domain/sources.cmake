set(SOURCES
  ${AREA_DIR}/attempt.cpp
  ${AREA_DIR}/deployment.cpp
)
