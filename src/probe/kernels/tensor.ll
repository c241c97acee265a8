; tensor.ll - the tensor-core burn, LLVM IR for llc -march=nvptx64
; -mcpu=sm_80 -mattr=+ptx70 (PTX 7.0: CUDA 11.0, driver r450 and later;
; mma.sync m16n8k16 bf16 needs PTX >= 7.0 and sm_80, PROBES.md 2.3).  It is
; loaded only on GPUs of compute capability 8.0 and later whose driver is
; CUDA 11.0 or newer, apart from the basic module, so that its failure
; hides nothing else.
;
; gd_burn_bf16(out, in, iters): every thread of a warp takes its fragments
; (A: 4 x b32 = 8 bf16, B: 2 x b32) from in[lane*6 ...], then runs iters
; rounds of two independent mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
; (4096 FLOP per warp each); the accumulators are stored to out[gid*8 ...].
; Same inputs on every GPU: same outputs.  Launch with a block size that is
; a multiple of 32 and iters >= 1.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.bf16(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define void @gd_burn_bf16(float addrspace(1)* %out, i32 addrspace(1)* %in, i32 %iters) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %blk = mul i32 %ctaid, %ntid
  %gid = add i32 %blk, %tid
  %lane = and i32 %tid, 31
  %w = mul i32 %lane, 6
  %p0 = getelementptr i32, i32 addrspace(1)* %in, i32 %w
  %a0 = load i32, i32 addrspace(1)* %p0
  %p1 = getelementptr i32, i32 addrspace(1)* %p0, i32 1
  %a1 = load i32, i32 addrspace(1)* %p1
  %p2 = getelementptr i32, i32 addrspace(1)* %p0, i32 2
  %a2 = load i32, i32 addrspace(1)* %p2
  %p3 = getelementptr i32, i32 addrspace(1)* %p0, i32 3
  %a3 = load i32, i32 addrspace(1)* %p3
  %p4 = getelementptr i32, i32 addrspace(1)* %p0, i32 4
  %b0 = load i32, i32 addrspace(1)* %p4
  %p5 = getelementptr i32, i32 addrspace(1)* %p0, i32 5
  %b1 = load i32, i32 addrspace(1)* %p5
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %c0 = phi float [ 0.0, %entry ], [ %d0, %loop ]
  %c1 = phi float [ 0.0, %entry ], [ %d1, %loop ]
  %c2 = phi float [ 0.0, %entry ], [ %d2, %loop ]
  %c3 = phi float [ 0.0, %entry ], [ %d3, %loop ]
  %e0 = phi float [ 1.0, %entry ], [ %f0, %loop ]
  %e1 = phi float [ 1.0, %entry ], [ %f1, %loop ]
  %e2 = phi float [ 1.0, %entry ], [ %f2, %loop ]
  %e3 = phi float [ 1.0, %entry ], [ %f3, %loop ]
  %r = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.bf16(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, float %c0, float %c1, float %c2, float %c3)
  %d0 = extractvalue { float, float, float, float } %r, 0
  %d1 = extractvalue { float, float, float, float } %r, 1
  %d2 = extractvalue { float, float, float, float } %r, 2
  %d3 = extractvalue { float, float, float, float } %r, 3
  %s = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.bf16(i32 %a3, i32 %a2, i32 %a1, i32 %a0, i32 %b1, i32 %b0, float %e0, float %e1, float %e2, float %e3)
  %f0 = extractvalue { float, float, float, float } %s, 0
  %f1 = extractvalue { float, float, float, float } %s, 1
  %f2 = extractvalue { float, float, float, float } %s, 2
  %f3 = extractvalue { float, float, float, float } %s, 3
  %k1 = add i32 %k, 1
  %done = icmp uge i32 %k1, %iters
  br i1 %done, label %exit, label %loop

exit:
  %o = mul i32 %gid, 8
  %q0 = getelementptr float, float addrspace(1)* %out, i32 %o
  store float %d0, float addrspace(1)* %q0
  %q1 = getelementptr float, float addrspace(1)* %q0, i32 1
  store float %d1, float addrspace(1)* %q1
  %q2 = getelementptr float, float addrspace(1)* %q0, i32 2
  store float %d2, float addrspace(1)* %q2
  %q3 = getelementptr float, float addrspace(1)* %q0, i32 3
  store float %d3, float addrspace(1)* %q3
  %q4 = getelementptr float, float addrspace(1)* %q0, i32 4
  store float %f0, float addrspace(1)* %q4
  %q5 = getelementptr float, float addrspace(1)* %q0, i32 5
  store float %f1, float addrspace(1)* %q5
  %q6 = getelementptr float, float addrspace(1)* %q0, i32 6
  store float %f2, float addrspace(1)* %q6
  %q7 = getelementptr float, float addrspace(1)* %q0, i32 7
  store float %f3, float addrspace(1)* %q7
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float addrspace(1)*, i32 addrspace(1)*, i32)* @gd_burn_bf16, !"kernel", i32 1}
