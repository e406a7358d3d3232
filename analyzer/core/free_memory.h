// Handing the allocator's free pages back to the system at the end of a
// phase that freed much (the scan's merge, the assessment's module graph).
//
// Why: a freed block stays in the process's resident set until the
// allocator returns its pages, and jemalloc does so only after ten seconds,
// by which time a scan has reached its peak in the assessment. On the 50k
// tree of bench/ these calls take the peak down by about 20 MB
// (docs/performance.md, "Fixed so far", item 13).
#pragma once

namespace mpsaudit {

// jemalloc, where the binary links it: purges every arena. The C library's
// allocator: malloc_trim. Elsewhere nothing.
void return_free_memory();

} // namespace mpsaudit
