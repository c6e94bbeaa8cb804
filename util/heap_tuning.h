// How the C library's allocator keeps memory between a forward pass and the next.
//
// Every network evaluation allocates and frees the same few buffers of hundreds of kilobytes
// (inputs, activations, oneDNN's scratch). With glibc's defaults the free space at the top of
// the heap goes back to the kernel as soon as it passes the trim threshold, and the next
// pass takes it again page by page: page faults and zeroed pages on every batch. In `xqzero
// bench mcts` that held self-play's leaf evaluations to about half (README, Benchmarks).
#pragma once

namespace xq::util {

// Keeps freed memory in the process for reuse: requests up to 32 MiB come from the heap
// (glibc's own ceiling for its adaptive mmap threshold on 64-bit systems), free space at the
// top of a heap is returned only past 512 MiB, and a heap grows by at least 64 MiB at a time.
// The price: a process keeps about its peak heap until it exits. A setting the user gave in
// the environment (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_, or the
// matching glibc.malloc tunable in GLIBC_TUNABLES) is left as given. Does nothing outside
// glibc. Call once, early in main().
void keep_freed_memory_for_reuse();

}  // namespace xq::util
