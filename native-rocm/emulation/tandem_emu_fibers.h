// tandem_emu_fibers.h: the emulation's GPU threads as fibers on the launching OS thread.
// - A block's threads take turns: each runs until it waits at a barrier or ends; a barrier lets its waiters go once
//   every live member has arrived. (An OS thread per GPU thread made spreading activation's tests take seconds.)
// - The waiters a barrier lets go run next, before threads still behind, so one warp runs ahead of the others as far
//   as the block's barriers allow: a kernel that lacks a __syncthreads() between one warp's write of shared memory
//   and another's read of it reads the wrong value here. Odd blocks start from their last thread, so the other
//   order shows too. (Without the first barrier of block_sum in device_common.h, the softmax cases fail.)
// - On x86-64 a switch saves the callee-saved registers and swaps stack pointers; swapcontext (used elsewhere) also
//   makes a signal-mask system call per switch, which dominated barrier-heavy kernels. TANDEM_EMU_CFLAGS=
//   -DTANDEM_EMU_UCONTEXT builds the ucontext path on x86-64 too, to test it.
#pragma once

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace tandem_emu {

#if defined(__x86_64__) && !defined(TANDEM_EMU_UCONTEXT)
/** Saves the callee-saved registers, MXCSR and the x87 control word on the current stack, stores the stack pointer
 * in *from, and resumes the fiber whose stack pointer is `to` (System V x86-64). */
__attribute__((naked, noinline)) inline void switch_stacks(void** /*from*/, void* /*to*/) {
  asm volatile(
      "pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
      "subq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n\t"
      "movq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\t"
      "ldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n\t"
      "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret");
}

/** Where a fiber resumes: its saved stack pointer. */
struct FiberContext {
  void* sp = nullptr;
  /** Prepares a fiber that starts in entry() (which must never return) on the given stack. */
  void start(void* stack, size_t bytes, void (*entry)()) {
    auto top = (reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t{15};
    auto* slot = reinterpret_cast<uint64_t*>(top);
    slot[-1] = 0;                                          // entry's return address: none
    slot[-2] = reinterpret_cast<uint64_t>(entry);          // switch_stacks' ret goes here
    for (int r = 3; r <= 8; ++r) slot[-r] = 0;             // rbp, rbx, r12..r15
    slot[-9] = 0x1F80ull | (uint64_t{0x037F} << 32);       // default MXCSR and x87 control word
    sp = &slot[-9];
  }
  /** Leaves `from` (saving where it stands) for `to`. */
  static void jump(FiberContext& from, FiberContext& to) { switch_stacks(&from.sp, to.sp); }
};
#else
/** Where a fiber resumes (ucontext). */
struct FiberContext {
  ucontext_t context;
  /** Prepares a fiber that starts in entry() (which must never return) on the given stack. */
  void start(void* stack, size_t bytes, void (*entry)()) {
    getcontext(&context);
    context.uc_stack.ss_sp = stack;
    context.uc_stack.ss_size = bytes;
    context.uc_link = nullptr;
    makecontext(&context, entry, 0);
  }
  /** Leaves `from` (saving where it stands) for `to`. */
  static void jump(FiberContext& from, FiberContext& to) { swapcontext(&from.context, &to.context); }
};
#endif

/** A rendezvous of a group of fibers: the block, or one warp. */
struct FiberBarrier {
  /** Live fibers of the group (a finished one no longer takes part). */
  unsigned members = 0;
  /** Of them, those waiting now, in the order they arrived. */
  std::vector<struct Fiber*> waiting;
};

/** One GPU thread of the block being run. */
struct Fiber {
  /** Where it resumes. */
  FiberContext context;
  /** Its index in the block (threadIdx, linearised). */
  unsigned linear = 0;
  /** __syncthreads_count's slot, alternating per call. */
  int countSlot = 0;
  /** Its kernel has returned. */
  bool done = false;
};

/** Stacks for up to 1024 fibers, mapped once per OS thread (pages are committed as used), each above a guard page. */
class FiberStacks {
 public:
  static constexpr size_t kStackBytes = 256 * 1024;
  static constexpr unsigned kMaxFibers = 1024;

  FiberStacks() {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, kMaxFibers * slot(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    for (unsigned i = 0; base_ != nullptr && i < kMaxFibers; ++i) mprotect(base_ + i * slot(), page_, PROT_NONE);
  }
  ~FiberStacks() {
    if (base_ != nullptr) munmap(base_, kMaxFibers * slot());
  }
  FiberStacks(const FiberStacks&) = delete;
  FiberStacks& operator=(const FiberStacks&) = delete;

  /** Whether the stacks could be mapped. */
  bool ok() const { return base_ != nullptr; }
  /** The usable stack of fiber i (above its guard page). */
  void* stack(unsigned i) const { return base_ + i * slot() + page_; }

 private:
  size_t slot() const { return kStackBytes + page_; }
  size_t page_ = 4096;
  char* base_ = nullptr;
};

/** The block being run on this OS thread: its fibers, barriers and the kernel call they share. */
struct FiberBlock {
  FiberBarrier block;
  std::vector<FiberBarrier> warps;
  std::vector<Fiber> fibers;
  FiberContext scheduler;
  Fiber* current = nullptr;
  /** Fibers that can run, the next first. */
  std::deque<Fiber*> ready;
  /** Threads per warp. */
  unsigned warpSize = 32;
  /** Runs the kernel with its arguments, as the current fiber. */
  void (*body)(void*) = nullptr;
  void* closure = nullptr;
};

inline thread_local FiberBlock* tl_fibers = nullptr;

/** The group's waiters run next, in the order they arrived. */
inline void release(FiberBarrier& b) {
  auto& ready = tl_fibers->ready;
  ready.insert(ready.begin(), b.waiting.begin(), b.waiting.end());
  b.waiting.clear();
}

/** The current fiber waits at b until every live member of its group has arrived; the last to arrive goes on. */
inline void arrive_and_wait(FiberBarrier& b) {
  if (b.waiting.size() + 1 == b.members) {
    release(b);
    return;
  }
  Fiber* self = tl_fibers->current;
  b.waiting.push_back(self);
  FiberContext::jump(self->context, tl_fibers->scheduler);
}

/** A finished fiber leaves the group; those waiting may now be all that is left of it. */
inline void leave(FiberBarrier& b) {
  --b.members;
  if (!b.waiting.empty() && b.waiting.size() == b.members) release(b);
}

/** Entry of every fiber: runs the kernel, leaves its barriers and hands back to the scheduler for good. */
inline void fiber_main() {
  FiberBlock* block = tl_fibers;
  Fiber* self = block->current;
  block->body(block->closure);
  self->done = true;
  leave(block->warps[self->linear / block->warpSize]);
  leave(block->block);
  FiberContext::jump(self->context, block->scheduler);
}

/**
 * Runs one block of `threads` GPU threads to the end: setThread(i) makes thread i current (threadIdx) before each
 * of its turns, body(closure) is the kernel call. False when the threads still alive all wait at barriers that can
 * never complete (a barrier inside divergent code); a GPU would hang there.
 */
inline bool run_fiber_block(unsigned threads, unsigned warpSize, bool reverseFirst, void (*setThread)(unsigned),
                            void (*body)(void*), void* closure) {
  static thread_local FiberStacks stacks;
  if (!stacks.ok() || threads > FiberStacks::kMaxFibers) return false;
  FiberBlock block;
  block.warpSize = warpSize;
  block.body = body;
  block.closure = closure;
  block.block.members = threads;
  block.warps.resize((threads + warpSize - 1) / warpSize);
  for (unsigned w = 0; w < block.warps.size(); ++w) block.warps[w].members = std::min(warpSize, threads - w * warpSize);
  block.fibers.resize(threads);
  for (unsigned i = 0; i < threads; ++i) {
    Fiber& f = block.fibers[i];
    f.linear = i;
    f.context.start(stacks.stack(i), FiberStacks::kStackBytes, fiber_main);
  }
  for (unsigned k = 0; k < threads; ++k) block.ready.push_back(&block.fibers[reverseFirst ? threads - 1 - k : k]);
  FiberBlock* const outer = tl_fibers;
  tl_fibers = &block;
  unsigned alive = threads;
  while (!block.ready.empty()) {
    Fiber* f = block.ready.front();
    block.ready.pop_front();
    block.current = f;
    setThread(f->linear);
    FiberContext::jump(block.scheduler, f->context);
    if (f->done) --alive;
  }
  tl_fibers = outer;
  return alive == 0;
}

}  // namespace tandem_emu
