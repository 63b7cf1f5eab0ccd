; idlegpu/matmul-u32/v1, one round on the GPU (x/settlement/audit/matmul.go):
;   out[i][j] = lowbias32(sum_k m[i][k] * b[k][j] + r)   (mod 2^32)
; Launched as 256 blocks (row i) x 256 threads (column j); the host runs
; the rounds, swapping out and m. This is the source of matmul_u32.ptx:
; `make audit-ptx` regenerates it with LLVM's llc (no CUDA toolkit needed),
; and the driver JIT-compiles the PTX for the GPU it runs on.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; Kernel arguments are generic pointers, as the driver passes them; they
; are converted to global ones (cvta.to.global) before use.
define void @matmul_u32_round(i32* noalias %gout, i32* noalias readonly %gm, i32* noalias readonly %gb, i32 %r) {
entry:
  %out = addrspacecast i32* %gout to i32 addrspace(1)*
  %m = addrspacecast i32* %gm to i32 addrspace(1)*
  %b = addrspacecast i32* %gb to i32 addrspace(1)*
  %i = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %j = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %row = shl i32 %i, 8
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %mi = add i32 %row, %k
  %mi64 = zext i32 %mi to i64
  %mp = getelementptr inbounds i32, i32 addrspace(1)* %m, i64 %mi64
  %mv = load i32, i32 addrspace(1)* %mp, align 4
  %bk = shl i32 %k, 8
  %bi = add i32 %bk, %j
  %bi64 = zext i32 %bi to i64
  %bp = getelementptr inbounds i32, i32 addrspace(1)* %b, i64 %bi64
  %bv = load i32, i32 addrspace(1)* %bp, align 4
  %prod = mul i32 %mv, %bv
  %acc.next = add i32 %acc, %prod
  %k.next = add nuw nsw i32 %k, 1
  %done = icmp eq i32 %k.next, 256
  br i1 %done, label %mix, label %loop

mix:
  ; lowbias32(acc + r)
  %x0 = add i32 %acc.next, %r
  %s1 = lshr i32 %x0, 16
  %x1 = xor i32 %x0, %s1
  %x2 = mul i32 %x1, 2146121005
  %s3 = lshr i32 %x2, 15
  %x3 = xor i32 %x2, %s3
  %x4 = mul i32 %x3, 2221713035
  %s5 = lshr i32 %x4, 16
  %x5 = xor i32 %x4, %s5
  %oi = add i32 %row, %j
  %oi64 = zext i32 %oi to i64
  %op = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %oi64
  store i32 %x5, i32 addrspace(1)* %op, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32*, i32*, i32*, i32)* @matmul_u32_round, !"kernel", i32 1}
