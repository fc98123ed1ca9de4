/* Wine 8.0 (Debian bookworm) lacks bcryptprimitives.dll, whose ProcessPrng
 * the Go runtime (1.24 and later) loads at start on Windows. This stands in
 * for it under Wine only, over advapi32's RtlGenRandom (SystemFunction036).
 * Built by .ci/windows; never shipped. */
#include <windows.h>

typedef BOOLEAN(WINAPI *genrandom)(PVOID, ULONG);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	static genrandom gen;
	if (!gen)
		gen = (genrandom)GetProcAddress(LoadLibraryA("advapi32.dll"), "SystemFunction036");
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!gen || !gen(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
