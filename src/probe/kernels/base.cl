/*
 * base.cl - the probes' basic GPU kernels, in OpenCL C, compiled at build
 * time by Debian's clang to PTX (.version 6.4, .target sm_52: every driver
 * since r418 JIT-compiles it for every later GPU; PROBES.md §2.1).  The
 * Makefile turns the PTX into a C string (build/gen/ptx_kernels.c): the
 * build needs no CUDA toolkit.  Only NVVM builtins are used (no OpenCL
 * library: the driver's JIT resolves nothing outside the module).
 *
 * Every kernel does a fixed, short amount of work per launch; the host loops
 * launches against its deadline (there is no call that cancels a kernel).
 */

static unsigned gid(void)
{
	return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
}

static unsigned long nthreads(void)
{
	return (unsigned long)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}

/* FP32 burn: 8 independent FMA chains per thread, iters rounds of 8 FMAs
 * (2 FLOP each), the sum stored so the JIT keeps the work.  The inputs are
 * the same on every GPU, so the outputs must be bit-identical across
 * launches and across GPUs of one model. */
__kernel void gd_burn_fp32(__global float *out, __global const float *in, unsigned iters)
{
	unsigned i = gid();
	float x = in[i];
	float a = x, b = x * 0.5f, c = x + 1.0f, d = x - 1.0f;
	float e = x * 0.25f, f = x + 0.5f, g = x - 0.5f, h = x * 0.75f;

	for (unsigned k = 0; k < iters; k++) {
		a = __builtin_fmaf(a, 0.99991f, 0.00013f);
		b = __builtin_fmaf(b, 0.99992f, 0.00011f);
		c = __builtin_fmaf(c, 0.99993f, 0.00017f);
		d = __builtin_fmaf(d, 0.99994f, 0.00019f);
		e = __builtin_fmaf(e, 0.99995f, 0.00023f);
		f = __builtin_fmaf(f, 0.99996f, 0.00029f);
		g = __builtin_fmaf(g, 0.99997f, 0.00031f);
		h = __builtin_fmaf(h, 0.99998f, 0.00037f);
	}
	out[i] = ((a + b) + (c + d)) + ((e + f) + (g + h));
}

/* Device-memory copy, 16 bytes per thread per step, grid-stride. */
__kernel void gd_copy(__global uint4 *dst, __global const uint4 *src, unsigned long n16)
{
	for (unsigned long i = gid(); i < n16; i += nthreads())
		dst[i] = src[i];
}

/* The address pattern: word i holds a hash of i and the seed. */
static unsigned addr_word(unsigned long i, unsigned seed)
{
	return ((unsigned)i * 2654435761u) ^ (unsigned)(i >> 32) ^ seed;
}

__kernel void gd_fill_addr(__global unsigned *p, unsigned long n, unsigned seed)
{
	for (unsigned long i = gid(); i < n; i += nthreads())
		p[i] = addr_word(i, seed);
}

/* Counts the words that differ from the address pattern into *errs. */
__kernel void gd_check_addr(__global const unsigned *p, unsigned long n, unsigned seed, __global unsigned *errs)
{
	unsigned bad = 0;

	for (unsigned long i = gid(); i < n; i += nthreads())
		bad += p[i] != addr_word(i, seed);
	if (bad)
		__sync_fetch_and_add(errs, bad);
}

/* Counts the words that differ from a constant (written by cuMemsetD32). */
__kernel void gd_check_const(__global const unsigned *p, unsigned long n, unsigned pat, __global unsigned *errs)
{
	unsigned bad = 0;

	for (unsigned long i = gid(); i < n; i += nthreads())
		bad += p[i] != pat;
	if (bad)
		__sync_fetch_and_add(errs, bad);
}
