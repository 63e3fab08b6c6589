#include "orchestrator/server/worker_pool.hpp"

#include <algorithm>

namespace orch::server {

WorkerPool::WorkerPool(std::size_t threads, std::size_t max_queued) : max_queued_(max_queued) {
    threads = std::max<std::size_t>(1, threads);
    idle_.reserve(threads);
    workers_.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i) {
        workers_.push_back(std::make_unique<Worker>());
    }
    // Started after the vector is complete: a worker only ever touches its own entry.
    for (auto& w : workers_) {
        w->thread = std::thread([this, raw = w.get()] { Run(*raw); });
    }
}

WorkerPool::~WorkerPool() {
    Join();
}

Status WorkerPool::Post(Job job) {
    Worker* target = nullptr;
    {
        const std::lock_guard lock(mutex_);
        if (stopping_) {
            return Error::Unavailable("the worker pool is shutting down");
        }
        if (idle_.empty()) {
            if (queue_.size() >= max_queued_) {
                return Error::Unavailable("the worker queue is full");
            }
            queue_.push_back(std::move(job));
            return Ok();
        }
        target = idle_.back();
        idle_.pop_back();
        target->job = std::move(job);
    }
    target->wake.release();  // outside the lock: the woken worker must not block on it
    return Ok();
}

void WorkerPool::Run(Worker& self) {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            if (!queue_.empty()) {
                job = std::move(queue_.front());
                queue_.pop_front();
            } else if (stopping_) {
                return;  // accepted work is drained: the queue is empty and no job is assigned
            } else {
                idle_.push_back(&self);
                lock.unlock();
                self.wake.acquire();
                job = std::move(self.job);
                if (!job) {
                    return;  // woken by Join() with nothing assigned
                }
            }
        }
        job();
    }
}

void WorkerPool::Join() {
    std::call_once(joined_, [this] {
        std::vector<Worker*> sleeping;
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
            // A queued job means no worker is idle, so `sleeping` and `queue_` are never both
            // non-empty: waking the idle ones with no job ends them, the busy ones drain the queue.
            sleeping.swap(idle_);
        }
        for (Worker* w : sleeping) {
            w->wake.release();
        }
        for (auto& w : workers_) {
            if (w->thread.joinable()) {
                w->thread.join();
            }
        }
    });
}

}  // namespace orch::server
