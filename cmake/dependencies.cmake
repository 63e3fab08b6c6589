# The single place that finds third-party packages (all from Debian bookworm).
# Quirks (yaml-cpp 0.7 without a namespace, pkg-config-only libpqxx) are hidden behind deps:: aliases.
find_package(Threads REQUIRED)
find_package(Boost 1.81...<1.82 CONFIG REQUIRED COMPONENTS system)
find_package(OpenSSL 3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx)

add_library(deps::boost INTERFACE IMPORTED)
target_link_libraries(deps::boost INTERFACE Boost::headers Boost::system Threads::Threads)
# Asio/Beast are compiled once per library through src.cpp files instead of in every TU.
target_compile_definitions(deps::boost INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_ASIO_SEPARATE_COMPILATION BOOST_BEAST_SEPARATE_COMPILATION)

add_library(deps::yaml INTERFACE IMPORTED)
target_link_libraries(deps::yaml INTERFACE yaml-cpp)

add_library(deps::json INTERFACE IMPORTED)
target_link_libraries(deps::json INTERFACE nlohmann_json::nlohmann_json)

add_library(deps::pqxx INTERFACE IMPORTED)
target_link_libraries(deps::pqxx INTERFACE PkgConfig::PQXX)

add_library(deps::ssl INTERFACE IMPORTED)
target_link_libraries(deps::ssl INTERFACE OpenSSL::SSL OpenSSL::Crypto)
