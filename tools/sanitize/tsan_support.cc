// For --config=tsan only (linked into every binary through --custom_malloc, see .bazelrc): what
// ThreadSanitizer needs to be useful against Debian's uninstrumented Abseil and gRPC.
//
// Debian's Abseil is not built with ThreadSanitizer: absl::Mutex, CondVar, Notification and
// BlockingCounter synchronise inside libabsl_synchronization.so, where TSan cannot see it, so every
// access they guard looks like a data race (a two-thread counter under absl::MutexLock is reported
// at once). This file defines their public entry points in the executable. At run time those
// definitions take the place of the library's for every caller, gRPC included, and each one tells
// TSan about the happens-before edge (unlock -> lock, notify -> wait) around a call to the real
// function, found with dlsym(RTLD_NEXT). See docs/adr/0052.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace {

#define SSIMD_TSAN_STR2(x) #x
#define SSIMD_TSAN_STR(x) SSIMD_TSAN_STR2(x)

// The library's function of mangled name "_ZN4absl<len><inline namespace><rest>" ("_ZNK..." for a
// const member function).
void* RealFunction(const char* rest, bool const_member) {
  const char* ns = SSIMD_TSAN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name = std::string(const_member ? "_ZNK4absl" : "_ZN4absl") +
                           std::to_string(std::strlen(ns)) + ns + rest;
  void* fn = dlsym(RTLD_NEXT, name.c_str());
  if (fn == nullptr) {
    std::fprintf(stderr, "tsan_support: %s not found in the Abseil library\n",
                 name.c_str());
    std::abort();
  }
  return fn;
}

template <typename Fn>
Fn Real(const char* rest, bool const_member = false) {
  return reinterpret_cast<Fn>(RealFunction(rest, const_member));
}

// absl evaluates a waiter's Condition under the lock but on whichever thread holds it then,
// possibly inside another thread's Unlock. Bracketing each evaluation with acquire/release of the
// mutex gives the reads inside the condition the same happens-before edges as any locked code.
struct AnnotatedCondition {
  const absl::Condition* inner;
  void* mu;

  static bool Eval(AnnotatedCondition* c) {
    __tsan_acquire(c->mu);
    const bool met = c->inner->Eval();
    __tsan_release(c->mu);
    return met;
  }
  absl::Condition Wrapped() { return absl::Condition(&AnnotatedCondition::Eval, this); }
};

using absl::BlockingCounter;
using absl::CondVar;
using absl::Condition;
using absl::Duration;
using absl::Mutex;
using absl::Notification;
using absl::Time;

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static auto real = Real<void (*)(Mutex*)>("5Mutex4LockEv");
  real(this);
  __tsan_acquire(this);
}

void Mutex::Unlock() {
  static auto real = Real<void (*)(Mutex*)>("5Mutex6UnlockEv");
  __tsan_release(this);
  real(this);
}

bool Mutex::TryLock() {
  static auto real = Real<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::ReaderLock() {
  static auto real = Real<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderUnlock() {
  static auto real = Real<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  __tsan_release(this);
  real(this);
}

bool Mutex::ReaderTryLock() {
  static auto real = Real<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static auto real = Real<void (*)(Mutex*, const Condition&)>("5Mutex8LockWhenERKNS0_9ConditionE");
  AnnotatedCondition wrapped{&cond, this};
  real(this, wrapped.Wrapped());
  __tsan_acquire(this);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  AnnotatedCondition wrapped{&cond, this};
  real(this, wrapped.Wrapped());
  __tsan_acquire(this);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), timeout);
  __tsan_acquire(this);  // held either way
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), deadline);
  __tsan_acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), timeout);
  __tsan_acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), deadline);
  __tsan_acquire(this);
  return met;
}

// Await releases the lock while it waits and holds it again when it returns.
void Mutex::Await(const Condition& cond) {
  static auto real = Real<void (*)(Mutex*, const Condition&)>("5Mutex5AwaitERKNS0_9ConditionE");
  __tsan_release(this);
  AnnotatedCondition wrapped{&cond, this};
  real(this, wrapped.Wrapped());
  __tsan_acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Duration)>(
      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  __tsan_release(this);
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), timeout);
  __tsan_acquire(this);
  return met;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static auto real = Real<bool (*)(Mutex*, const Condition&, Time)>(
      "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  __tsan_release(this);
  AnnotatedCondition wrapped{&cond, this};
  const bool met = real(this, wrapped.Wrapped(), deadline);
  __tsan_acquire(this);
  return met;
}

void CondVar::Wait(Mutex* mu) {
  static auto real = Real<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPNS0_5MutexE");
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static auto real = Real<bool (*)(CondVar*, Mutex*, Duration)>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  __tsan_release(mu);
  const bool timed_out = real(this, mu, timeout);
  __tsan_acquire(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static auto real = Real<bool (*)(CondVar*, Mutex*, Time)>(
      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  __tsan_release(mu);
  const bool timed_out = real(this, mu, deadline);
  __tsan_acquire(mu);
  return timed_out;
}

void Notification::Notify() {
  static auto real = Real<void (*)(Notification*)>("12Notification6NotifyEv");
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  static auto real =
      Real<void (*)(const Notification*)>("12Notification19WaitForNotificationEv", true);
  real(this);
  __tsan_acquire(const_cast<Notification*>(this));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  static auto real = Real<bool (*)(const Notification*, Duration)>(
      "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE", true);
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  static auto real = Real<bool (*)(const Notification*, Time)>(
      "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE", true);
  const bool notified = real(this, deadline);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

bool BlockingCounter::DecrementCount() {
  static auto real = Real<bool (*)(BlockingCounter*)>("15BlockingCounter14DecrementCountEv");
  __tsan_release(this);
  return real(this);
}

void BlockingCounter::Wait() {
  static auto real = Real<void (*)(BlockingCounter*)>("15BlockingCounter4WaitEv");
  real(this);
  __tsan_acquire(this);
}

ABSL_NAMESPACE_END
}  // namespace absl

// Uninstrumented libraries synchronise in ways TSan cannot see (Abseil's deadlock detector under
// a spin lock of its own; gRPC core's combiners, atomics and lock-free queues), yet TSan's
// interceptors (memcpy, sendmsg, new and delete) still see their memory accesses and report them
// as races. Interceptor calls made from inside those libraries are silenced; every access made by
// ssimd's own (instrumented) code is still checked.
//
// gRPC's C++ layer is partly templates in its headers (CallOpSet, CallbackWithSuccessTag, the
// callback handlers' ServerCallbackReaderWriterImpl), compiled into ssimd's binaries and so
// instrumented, while the completion queue that hands work from thread to thread is in libgrpc.
// TSan therefore cannot see that a reactor callback (OnWriteDone, OnDone) runs after the
// operation that caused it. Two kinds of report come only from that blind spot and are silenced:
// accesses made by gRPC's own internals (race_top: a gRPC frame is the accessing one), and races
// where one side runs inside a gRPC operation's start or completion on a reactor (a response
// serialised inside Write, or in ClipReactor::HostWrite just before StartWrite, and freed in
// OnWriteDone; a request message handed to StartRead and
// parsed into when the read completes; a reactor used in a callback (OnCancel, OnReadDone) before
// Finish and deleted once gRPC has called OnDone, which it does only after those callbacks
// returned). Races between ssimd's own threads (workers, the pipeline's mutex, the engine) are still
// reported, and use after free across gRPC callbacks is AddressSanitizer's job (docs/adr/0052).
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:libabsl_graphcycles_internal.so\n"
         "called_from_lib:libabsl_status.so\n"
         "called_from_lib:libabsl_cord.so\n"
         "called_from_lib:libabsl_time_zone.so\n"
         "called_from_lib:libgrpc.so\n"
         "called_from_lib:libgpr.so\n"
         "called_from_lib:libgrpc++.so\n"
         "race_top:^grpc::internal::\n"
         "race_top:^std::_Function_handler<void (bool), grpc::internal::\n"
         "race:ServerCallbackReaderWriterImpl::~ServerCallbackReaderWriterImpl\n"
         "race:ServerCallbackReaderWriterImpl::Write\n"
         "race:ClipReactor::HostWrite\n"
         // A client plane slice's owner, made by the sender and released by whichever gRPC
         // thread drops the slice's last reference (an atomic inside libgrpc).
         "race:PlaneSlice\n"
         "race:ServerCallbackReaderWriterImpl::CallOnDone\n"
         "race:CallOpRecvMessage\n"
         "race:Reactor::HostDestroy\n";
}

// Abseil's deadlock detector keeps its lock graph under a spin lock of its own, which TSan cannot
// see, and its accesses (memmove in GraphCycles::GetId, from gRPC's timer and executor threads)
// were reported as races despite the suppressions above. TSan detects lock-order inversions
// itself, so the detector is switched off in these builds before any thread starts.
namespace {
[[maybe_unused]] const bool kAbslDeadlockDetectionOff = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return true;
}();
}  // namespace
