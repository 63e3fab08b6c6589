// Asio and Beast are header-only by default; compiling their implementation once here (with
// BOOST_*_SEPARATE_COMPILATION set for this library's users) saves seconds per translation unit.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
