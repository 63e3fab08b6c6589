#include <orchestrator/server/worker_pool.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <set>
#include <thread>

using orch::ErrorCode;
using orch::server::WorkerPool;

TEST_CASE("worker pool runs every job exactly once", "[orchestrator][worker_pool]") {
    constexpr int kJobs = 20000;
    std::vector<std::atomic<int>> runs(kJobs);
    std::atomic<int> refused{0};  // counted, not asserted: Catch2 assertions are not thread-safe
    {
        WorkerPool pool(4, kJobs);
        // Posted from several threads at once, as the I/O threads do.
        std::vector<std::thread> posters;
        for (int t = 0; t < 4; ++t) {
            posters.emplace_back([&, t] {
                for (int i = t; i < kJobs; i += 4) {
                    if (!pool.Post(WorkerPool::Job([&runs, i] { runs[i].fetch_add(1); }))) {
                        refused.fetch_add(1);
                    }
                }
            });
        }
        for (auto& p : posters) {
            p.join();
        }
    }  // the destructor drains what was accepted
    int wrong = 0;
    for (const auto& r : runs) {
        wrong += r.load() != 1 ? 1 : 0;
    }
    CHECK(refused.load() == 0);
    CHECK(wrong == 0);
}

TEST_CASE("worker pool runs jobs on several threads and accepts move-only jobs", "[orchestrator][worker_pool]") {
    WorkerPool pool(3, 8);
    std::latch all_running(3);
    std::mutex m;
    std::set<std::thread::id> ids;
    std::vector<std::future<int>> results;
    for (int i = 0; i < 3; ++i) {
        std::promise<int> promise;  // move-only capture: would not fit a std::function
        results.push_back(promise.get_future());
        REQUIRE(pool.Post(WorkerPool::Job([&, i, p = std::move(promise)]() mutable {
            {
                const std::lock_guard lock(m);
                ids.insert(std::this_thread::get_id());
            }
            all_running.arrive_and_wait();  // only passes if three workers run at the same time
            p.set_value(i * 10);
        })));
    }
    for (int i = 0; i < 3; ++i) {
        CHECK(results[i].get() == i * 10);
    }
    CHECK(ids.size() == 3);
}

TEST_CASE("worker pool refuses with kUnavailable when its queue is full", "[orchestrator][worker_pool]") {
    WorkerPool pool(2, 3);
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::atomic<int> ran{0};
    std::latch busy(2);
    // Two jobs occupy both workers...
    for (int i = 0; i < 2; ++i) {
        REQUIRE(pool.Post(WorkerPool::Job([&, gate] {
            busy.count_down();
            gate.wait();
            ran.fetch_add(1);
        })));
    }
    busy.wait();
    // ...three more fill the queue, the sixth is refused and never runs.
    for (int i = 0; i < 3; ++i) {
        REQUIRE(pool.Post(WorkerPool::Job([&] { ran.fetch_add(1); })));
    }
    auto refused = pool.Post(WorkerPool::Job([&] { ran.fetch_add(100); }));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kUnavailable);
    CHECK(refused.error().message == "the worker queue is full");
    release.set_value();
    pool.Join();
    CHECK(ran.load() == 5);
    // After Join() it refuses for good.
    auto after_join = pool.Post(WorkerPool::Job([&] { ran.fetch_add(1); }));
    REQUIRE_FALSE(after_join);
    CHECK(after_join.error().code == ErrorCode::kUnavailable);
}

TEST_CASE("worker pool Join drains the queued jobs before returning", "[orchestrator][worker_pool]") {
    WorkerPool pool(1, 100);
    std::atomic<int> ran{0};
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    REQUIRE(pool.Post(WorkerPool::Job([&, gate] {
        gate.wait();
        ran.fetch_add(1);
    })));
    for (int i = 0; i < 50; ++i) {
        REQUIRE(pool.Post(WorkerPool::Job([&] {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            ran.fetch_add(1);
        })));
    }
    std::thread joiner([&] { pool.Join(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(ran.load() == 0);  // Join waits: the first job still blocks the only worker
    release.set_value();
    joiner.join();
    CHECK(ran.load() == 51);
}
