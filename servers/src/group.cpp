// ServerGroup: p servers as p threads of this process, kept between runs.
#include "hashlab/servers/group.hpp"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "detail.hpp"
#include "hashlab/common/cuda_check.hpp"
#include "hashlab/common/memory.hpp"

namespace hashlab::servers {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void keep_nvlink_multicast_off() {
  // overwrite = 0: a value the user set stays.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
}

namespace {

std::string what_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

bool is_group_aborted(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const GroupAborted&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// The error to report for a group: the lowest server's own failure (not a GroupAborted that
/// only echoes it), else the lowest server's error.
std::exception_ptr root_cause(const std::vector<std::exception_ptr>& errors) {
  for (const auto& e : errors)
    if (e && !is_group_aborted(e)) return e;
  for (const auto& e : errors)
    if (e) return e;
  return nullptr;
}

/// With servers on several devices, each device's default pool lets the other devices of the
/// group read and write it where the hardware allows (the local backend copies between pools).
void share_pool_with_peers(int device, const std::vector<int>& devices) {
  cudaMemPool_t pool = nullptr;
  HASHLAB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  for (const int peer : std::set<int>(devices.begin(), devices.end())) {
    if (peer == device) continue;
    int can = 0;
    HASHLAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, peer, device));
    if (!can) continue;
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = peer;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    HASHLAB_CUDA_CHECK(cudaMemPoolSetAccess(pool, &access, 1));
  }
}

}  // namespace

struct ServerGroup::Impl {
  GroupOptions options;
  std::vector<int> devices;
  std::shared_ptr<detail::GroupState> state;
  detail::NcclId nccl_id{};

  std::mutex mutex;
  std::condition_variable wake, finished;
  const std::function<void(Communicator&)>* work = nullptr;
  unsigned long long round = 0;  // incremented for every run (and once to stop)
  bool stopping = false;
  int ready = 0;                 // servers started (or failed to start)
  int done = 0;                  // servers done with the current run
  std::vector<std::exception_ptr> errors;
  bool failed = false;
  std::vector<std::thread> threads;

  void serve(int rank);
};

void ServerGroup::Impl::serve(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Communicator> comm;
  try {
    HASHLAB_CUDA_CHECK(cudaSetDevice(devices[r]));
    if (options.backend == Backend::kLocal) share_pool_with_peers(devices[r], devices);
    stream = std::make_unique<Stream>();
    comm = options.backend == Backend::kNccl
               ? detail::make_nccl_communicator(rank, options.servers, devices[r], stream->get(), nccl_id, state)
               : detail::make_local_communicator(rank, stream->get(), state);
  } catch (...) {
    state->abort("server " + std::to_string(rank) + " failed to start: " + what_of(std::current_exception()));
    std::lock_guard<std::mutex> lock(mutex);
    errors[r] = std::current_exception();
  }
  unsigned long long seen = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++ready;
  }
  finished.notify_all();
  for (;;) {
    const std::function<void(Communicator&)>* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return round != seen; });
      seen = round;
      if (stopping) break;
      task = work;
    }
    std::exception_ptr error;
    if (comm) {
      comm->clear_boundary_failure();
      try {
        (*task)(*comm);
      } catch (...) {
        error = std::current_exception();
        // A failure every server shares (phase_boundary) leaves the group healthy; a failure of
        // this server alone ends the others at their next collective.
        if (!comm->failed_at_boundary()) comm->abort(comm->who() + ": " + what_of(error));
      }
    } else {
      error = std::make_exception_ptr(GroupAborted("server " + std::to_string(rank) + " did not start"));
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      errors[r] = error;
      ++done;
    }
    finished.notify_all();
  }
  comm.reset();  // each server finalizes its own communicator, all at the same time
}

ServerGroup::ServerGroup(GroupOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& g = *impl_;
  g.options = std::move(options);
  const int gpus = device_count();
  if (gpus == 0) throw std::invalid_argument("servers: no CUDA GPU on this host");
  g.devices = assign_devices(g.options.servers, gpus, g.options.devices, g.options.backend == Backend::kLocal);
  if (g.options.backend == Backend::kNccl) g.nccl_id = detail::nccl_unique_id();
  g.state = std::make_shared<detail::GroupState>(g.devices);
  g.errors.assign(static_cast<std::size_t>(g.options.servers), nullptr);
  for (int r = 0; r < g.options.servers; ++r) g.threads.emplace_back([&g, r] { g.serve(r); });
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(g.mutex);
    g.finished.wait(lock, [&] { return g.ready == g.options.servers; });
    error = root_cause(g.errors);
  }
  if (error) {
    {
      std::lock_guard<std::mutex> lock(g.mutex);
      g.stopping = true;
      ++g.round;
    }
    g.wake.notify_all();
    for (auto& t : g.threads) t.join();
    std::rethrow_exception(error);
  }
}

ServerGroup::~ServerGroup() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
    ++impl_->round;
  }
  impl_->wake.notify_all();
  for (auto& t : impl_->threads) t.join();
}

int ServerGroup::size() const { return impl_->options.servers; }
Backend ServerGroup::backend() const { return impl_->options.backend; }
const std::vector<int>& ServerGroup::devices() const { return impl_->devices; }
bool ServerGroup::shares_devices() const {
  return std::set<int>(impl_->devices.begin(), impl_->devices.end()).size() < impl_->devices.size();
}
bool ServerGroup::failed() const { return impl_->failed; }

void ServerGroup::run(const std::function<void(Communicator&)>& work) {
  Impl& g = *impl_;
  if (g.failed)
    throw std::logic_error("servers: this group was aborted by an earlier failure (" + g.state->reason() +
                           "); create a new group");
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(g.mutex);
    g.work = &work;
    g.done = 0;
    std::fill(g.errors.begin(), g.errors.end(), nullptr);
    ++g.round;
    g.wake.notify_all();
    g.finished.wait(lock, [&] { return g.done == g.options.servers; });
    g.work = nullptr;
    error = root_cause(g.errors);
  }
  if (error) {
    if (g.state->aborted()) g.failed = true;
    std::rethrow_exception(error);
  }
}

}  // namespace hashlab::servers
