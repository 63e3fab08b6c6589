#pragma once

#include <string>

namespace orch::test {

/// The repository root, the shared/ reference folder beside it, and the build directory.
std::string SourceDir();
std::string SharedDir();
std::string BinaryDir();

/// Reads a whole file; throws std::runtime_error when it cannot (tests only).
std::string ReadFile(const std::string& path);

/// One value file (no line break) from the state folder `dir` of a real-server rig started by
/// scripts/<fixture>/start. When it is missing, throws saying which rig is not running and how to
/// start it, so a test run without its CTest fixture fails with the reason.
std::string ReadRigValue(
    const std::string& dir, const std::string& file, const std::string& rig, const std::string& fixture
);

/// A loopback TCP port that nothing listens on right now.
int FreePort();

/// DSN of the throwaway PostgreSQL started by the `pg` CTest fixture (scripts/lib/test-pg).
/// Throws when the fixture did not run, so a test that needs the database cannot pass without it.
std::string AdminDsn();

/// A fresh database for one test, dropped when the object dies; tests never share state.
class TestDatabase {
   public:
    TestDatabase();
    ~TestDatabase();
    TestDatabase(const TestDatabase&) = delete;
    TestDatabase& operator=(const TestDatabase&) = delete;

    const std::string& dsn() const { return dsn_; }
    const std::string& name() const { return name_; }

   private:
    std::string name_;
    std::string dsn_;
};

}  // namespace orch::test
