#pragma once

#include "common/result.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>
#include <utility>
#include <vector>

namespace orch::server {

/// A fixed set of threads running blocking request handlers, with a bounded queue.
///
/// Why not `asio::thread_pool`: its workers all sleep on one condition variable, and each
/// request cost ≈5.7 futex calls (wake-ups, lock hand-offs) on the list path (docs/api.md
/// "List throughput"). Here a job posted while a worker is idle is handed to that worker
/// directly and wakes it alone (one semaphore release); idle workers are taken last-in
/// first-out, so under light load the same warm threads keep running. Only when every worker
/// is busy does a job wait in the queue, which holds at most `max_queued` jobs.
class WorkerPool {
   public:
    /// A move-only job (asio completion handlers cannot be copied, so std::function will not do).
    class Job {
       public:
        Job() = default;
        template <typename F>
        explicit Job(F fn) : impl_(std::make_unique<Model<F>>(std::move(fn))) {}
        void operator()() { impl_->Run(); }
        explicit operator bool() const { return impl_ != nullptr; }

       private:
        struct Concept {
            virtual ~Concept() = default;
            virtual void Run() = 0;
        };
        template <typename F>
        struct Model final : Concept {
            explicit Model(F f) : fn(std::move(f)) {}
            void Run() override { fn(); }
            F fn;
        };
        std::unique_ptr<Concept> impl_;
    };

    /// `threads` >= 1 workers; `max_queued` jobs may wait when all of them are busy.
    WorkerPool(std::size_t threads, std::size_t max_queued);
    /// Same as Join().
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Runs `job` on a worker. kUnavailable when the queue is full or the pool is shutting down;
    /// the job is then dropped without running. A job must not throw (it is the caller's
    /// boundary): an escaping exception terminates the process.
    Status Post(Job job);

    /// Refuses new jobs, runs every job already accepted, then joins the threads. Idempotent.
    void Join();

   private:
    // One per thread; `job` is written by Post() under the mutex before `wake` is released.
    struct Worker {
        std::binary_semaphore wake{0};
        Job job;
        std::thread thread;
    };

    void Run(Worker& self);

    std::size_t max_queued_;
    std::mutex mutex_;
    std::deque<Job> queue_;      // jobs waiting for a worker (all busy when they came)
    std::vector<Worker*> idle_;  // workers blocked on `wake`, most recently idle last
    std::vector<std::unique_ptr<Worker>> workers_;
    bool stopping_ = false;
    std::once_flag joined_;
};

}  // namespace orch::server
