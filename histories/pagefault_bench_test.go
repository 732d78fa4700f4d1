//go:build linux

package histories_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// BenchmarkTouchFreshMemory is the floor under every figure of a check
// that allocates hundreds of megabytes: the cost of the kernel handing
// out fresh pages. It maps 300 MB, writes one byte per 4 KiB page and
// unmaps it, with and without asking for transparent huge pages
// (MADV_HUGEPAGE), which the Go runtime does not ask for. docs/performance.md
// quotes it ("touched 300 MB"); with THP set to never, both cost the same.
func BenchmarkTouchFreshMemory(b *testing.B) {
	const size = 300 << 20
	if thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err == nil {
		b.Logf("transparent_hugepage/enabled: %s", thp)
	}
	for _, advise := range []bool{false, true} {
		b.Run(fmt.Sprintf("hugepage-advice=%v", advise), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				if advise {
					if err := syscall.Madvise(mem, syscall.MADV_HUGEPAGE); err != nil {
						b.Fatal(err)
					}
				}
				for i := 0; i < len(mem); i += 4096 {
					mem[i] = 1
				}
				if err := syscall.Munmap(mem); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
