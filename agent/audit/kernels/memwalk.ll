; idlegpu/memwalk/v1 on the GPU (x/settlement/audit/memwalk.go): the two
; kernels the host (agent/audit/gpu.go) launches.
;
;   memwalk_build(table, cache, first, end)
;       one thread per table item j in [first, end): table[j] = Cache.Item(j)
;   memwalk_walk(table, states, out, items, count, seg_first, seg_count, seg_steps)
;       one thread per lane i < count: from states[i], run segments
;       seg_first .. seg_first+seg_count-1 (global steps seg·seg_steps ..),
;       out[i·seg_count + k] = the state after segment seg_first+k, and
;       states[i] = the last of them, so the next launch goes on from there.
;
; Items are 16 words (64 bytes, one <16 x i32>), states 8 (<8 x i32>);
; every index into the table is 64-bit (an H200's table has more than 2^31
; items, more than 2^32 words). fnv(a, b) = a·0x01000193 ⊕ b and
; lowbias32 are written out inline, over whole vectors where the spec
; applies them to every word. This is the source of memwalk.ptx: `make
; audit-ptx` regenerates it with LLVM's llc (no CUDA toolkit needed), and
; the driver JIT-compiles the PTX for the GPU it runs on.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; Kernel arguments are generic pointers, as the driver passes them; they
; are converted to global ones (cvta.to.global) before use.
define void @memwalk_build(i32* noalias %gtable, i32* noalias readonly %gcache, i32 %first, i32 %end) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid64 = zext i32 %ctaid to i64
  %ntid64 = zext i32 %ntid to i64
  %tid64 = zext i32 %tid to i64
  %base = mul i64 %ctaid64, %ntid64
  %gid = add i64 %base, %tid64
  %first64 = zext i32 %first to i64
  %end64 = zext i32 %end to i64
  %j64 = add i64 %first64, %gid
  %in = icmp ult i64 %j64, %end64
  br i1 %in, label %init, label %exit

init:
  %table.g = addrspacecast i32* %gtable to i32 addrspace(1)*
  %cache.g = addrspacecast i32* %gcache to i32 addrspace(1)*
  %table = bitcast i32 addrspace(1)* %table.g to <16 x i32> addrspace(1)*
  %cache = bitcast i32 addrspace(1)* %cache.g to <16 x i32> addrspace(1)*
  %fnvp.0 = insertelement <16 x i32> undef, i32 16777619, i32 0
  %FNV = shufflevector <16 x i32> %fnvp.0, <16 x i32> undef, <16 x i32> zeroinitializer
  %j = trunc i64 %j64 to i32
  ; mix = cache[j mod CacheItems]; mix[0] ^= j; mix = lowbias32(mix)
  %ci = and i32 %j, 16383
  %ci64 = zext i32 %ci to i64
  %cp = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %ci64
  %c = load <16 x i32>, <16 x i32> addrspace(1)* %cp, align 64
  %c0 = extractelement <16 x i32> %c, i32 0
  %c0x = xor i32 %c0, %j
  %m0 = insertelement <16 x i32> %c, i32 %c0x, i32 0
  %m0.s1 = lshr <16 x i32> %m0, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %m0.x1 = xor <16 x i32> %m0, %m0.s1
  %m0.x2 = mul <16 x i32> %m0.x1, <i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005>
  %m0.s3 = lshr <16 x i32> %m0.x2, <i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15>
  %m0.x3 = xor <16 x i32> %m0.x2, %m0.s3
  %m0.x4 = mul <16 x i32> %m0.x3, <i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035>
  %m0.s5 = lshr <16 x i32> %m0.x4, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %mix0 = xor <16 x i32> %m0.x4, %m0.s5
  br label %parents

; Parents (256) parents, 16 per iteration so that the word choosing each
; parent, mix[p mod 16], is a constant index: parent p+k is
; fnv(j ⊕ (p+k), mix[k]) mod CacheItems (p+k = p|k, p a multiple of 16),
; and mixing it in is mix = fnv(mix, cache[parent]) word by word.
parents:
  %p = phi i32 [ 0, %init ], [ %p.next, %parents ]
  %mix = phi <16 x i32> [ %mix0, %init ], [ %mx16, %parents ]
  %jp = xor i32 %j, %p

  %w0 = extractelement <16 x i32> %mix, i32 0
  %a0 = mul i32 %jp, 16777619
  %h0 = xor i32 %a0, %w0
  %i0 = and i32 %h0, 16383
  %i0.64 = zext i32 %i0 to i64
  %pp0 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i0.64
  %par0 = load <16 x i32>, <16 x i32> addrspace(1)* %pp0, align 64
  %f0 = mul <16 x i32> %mix, %FNV
  %mx1 = xor <16 x i32> %f0, %par0

  %w1 = extractelement <16 x i32> %mx1, i32 1
  %jp1 = xor i32 %jp, 1
  %a1 = mul i32 %jp1, 16777619
  %h1 = xor i32 %a1, %w1
  %i1 = and i32 %h1, 16383
  %i1.64 = zext i32 %i1 to i64
  %pp1 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i1.64
  %par1 = load <16 x i32>, <16 x i32> addrspace(1)* %pp1, align 64
  %f1 = mul <16 x i32> %mx1, %FNV
  %mx2 = xor <16 x i32> %f1, %par1

  %w2 = extractelement <16 x i32> %mx2, i32 2
  %jp2 = xor i32 %jp, 2
  %a2 = mul i32 %jp2, 16777619
  %h2 = xor i32 %a2, %w2
  %i2 = and i32 %h2, 16383
  %i2.64 = zext i32 %i2 to i64
  %pp2 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i2.64
  %par2 = load <16 x i32>, <16 x i32> addrspace(1)* %pp2, align 64
  %f2 = mul <16 x i32> %mx2, %FNV
  %mx3 = xor <16 x i32> %f2, %par2

  %w3 = extractelement <16 x i32> %mx3, i32 3
  %jp3 = xor i32 %jp, 3
  %a3 = mul i32 %jp3, 16777619
  %h3 = xor i32 %a3, %w3
  %i3 = and i32 %h3, 16383
  %i3.64 = zext i32 %i3 to i64
  %pp3 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i3.64
  %par3 = load <16 x i32>, <16 x i32> addrspace(1)* %pp3, align 64
  %f3 = mul <16 x i32> %mx3, %FNV
  %mx4 = xor <16 x i32> %f3, %par3

  %w4 = extractelement <16 x i32> %mx4, i32 4
  %jp4 = xor i32 %jp, 4
  %a4 = mul i32 %jp4, 16777619
  %h4 = xor i32 %a4, %w4
  %i4 = and i32 %h4, 16383
  %i4.64 = zext i32 %i4 to i64
  %pp4 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i4.64
  %par4 = load <16 x i32>, <16 x i32> addrspace(1)* %pp4, align 64
  %f4 = mul <16 x i32> %mx4, %FNV
  %mx5 = xor <16 x i32> %f4, %par4

  %w5 = extractelement <16 x i32> %mx5, i32 5
  %jp5 = xor i32 %jp, 5
  %a5 = mul i32 %jp5, 16777619
  %h5 = xor i32 %a5, %w5
  %i5 = and i32 %h5, 16383
  %i5.64 = zext i32 %i5 to i64
  %pp5 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i5.64
  %par5 = load <16 x i32>, <16 x i32> addrspace(1)* %pp5, align 64
  %f5 = mul <16 x i32> %mx5, %FNV
  %mx6 = xor <16 x i32> %f5, %par5

  %w6 = extractelement <16 x i32> %mx6, i32 6
  %jp6 = xor i32 %jp, 6
  %a6 = mul i32 %jp6, 16777619
  %h6 = xor i32 %a6, %w6
  %i6 = and i32 %h6, 16383
  %i6.64 = zext i32 %i6 to i64
  %pp6 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i6.64
  %par6 = load <16 x i32>, <16 x i32> addrspace(1)* %pp6, align 64
  %f6 = mul <16 x i32> %mx6, %FNV
  %mx7 = xor <16 x i32> %f6, %par6

  %w7 = extractelement <16 x i32> %mx7, i32 7
  %jp7 = xor i32 %jp, 7
  %a7 = mul i32 %jp7, 16777619
  %h7 = xor i32 %a7, %w7
  %i7 = and i32 %h7, 16383
  %i7.64 = zext i32 %i7 to i64
  %pp7 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i7.64
  %par7 = load <16 x i32>, <16 x i32> addrspace(1)* %pp7, align 64
  %f7 = mul <16 x i32> %mx7, %FNV
  %mx8 = xor <16 x i32> %f7, %par7

  %w8 = extractelement <16 x i32> %mx8, i32 8
  %jp8 = xor i32 %jp, 8
  %a8 = mul i32 %jp8, 16777619
  %h8 = xor i32 %a8, %w8
  %i8 = and i32 %h8, 16383
  %i8.64 = zext i32 %i8 to i64
  %pp8 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i8.64
  %par8 = load <16 x i32>, <16 x i32> addrspace(1)* %pp8, align 64
  %f8 = mul <16 x i32> %mx8, %FNV
  %mx9 = xor <16 x i32> %f8, %par8

  %w9 = extractelement <16 x i32> %mx9, i32 9
  %jp9 = xor i32 %jp, 9
  %a9 = mul i32 %jp9, 16777619
  %h9 = xor i32 %a9, %w9
  %i9 = and i32 %h9, 16383
  %i9.64 = zext i32 %i9 to i64
  %pp9 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i9.64
  %par9 = load <16 x i32>, <16 x i32> addrspace(1)* %pp9, align 64
  %f9 = mul <16 x i32> %mx9, %FNV
  %mx10 = xor <16 x i32> %f9, %par9

  %w10 = extractelement <16 x i32> %mx10, i32 10
  %jp10 = xor i32 %jp, 10
  %a10 = mul i32 %jp10, 16777619
  %h10 = xor i32 %a10, %w10
  %i10 = and i32 %h10, 16383
  %i10.64 = zext i32 %i10 to i64
  %pp10 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i10.64
  %par10 = load <16 x i32>, <16 x i32> addrspace(1)* %pp10, align 64
  %f10 = mul <16 x i32> %mx10, %FNV
  %mx11 = xor <16 x i32> %f10, %par10

  %w11 = extractelement <16 x i32> %mx11, i32 11
  %jp11 = xor i32 %jp, 11
  %a11 = mul i32 %jp11, 16777619
  %h11 = xor i32 %a11, %w11
  %i11 = and i32 %h11, 16383
  %i11.64 = zext i32 %i11 to i64
  %pp11 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i11.64
  %par11 = load <16 x i32>, <16 x i32> addrspace(1)* %pp11, align 64
  %f11 = mul <16 x i32> %mx11, %FNV
  %mx12 = xor <16 x i32> %f11, %par11

  %w12 = extractelement <16 x i32> %mx12, i32 12
  %jp12 = xor i32 %jp, 12
  %a12 = mul i32 %jp12, 16777619
  %h12 = xor i32 %a12, %w12
  %i12 = and i32 %h12, 16383
  %i12.64 = zext i32 %i12 to i64
  %pp12 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i12.64
  %par12 = load <16 x i32>, <16 x i32> addrspace(1)* %pp12, align 64
  %f12 = mul <16 x i32> %mx12, %FNV
  %mx13 = xor <16 x i32> %f12, %par12

  %w13 = extractelement <16 x i32> %mx13, i32 13
  %jp13 = xor i32 %jp, 13
  %a13 = mul i32 %jp13, 16777619
  %h13 = xor i32 %a13, %w13
  %i13 = and i32 %h13, 16383
  %i13.64 = zext i32 %i13 to i64
  %pp13 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i13.64
  %par13 = load <16 x i32>, <16 x i32> addrspace(1)* %pp13, align 64
  %f13 = mul <16 x i32> %mx13, %FNV
  %mx14 = xor <16 x i32> %f13, %par13

  %w14 = extractelement <16 x i32> %mx14, i32 14
  %jp14 = xor i32 %jp, 14
  %a14 = mul i32 %jp14, 16777619
  %h14 = xor i32 %a14, %w14
  %i14 = and i32 %h14, 16383
  %i14.64 = zext i32 %i14 to i64
  %pp14 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i14.64
  %par14 = load <16 x i32>, <16 x i32> addrspace(1)* %pp14, align 64
  %f14 = mul <16 x i32> %mx14, %FNV
  %mx15 = xor <16 x i32> %f14, %par14

  %w15 = extractelement <16 x i32> %mx15, i32 15
  %jp15 = xor i32 %jp, 15
  %a15 = mul i32 %jp15, 16777619
  %h15 = xor i32 %a15, %w15
  %i15 = and i32 %h15, 16383
  %i15.64 = zext i32 %i15 to i64
  %pp15 = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %cache, i64 %i15.64
  %par15 = load <16 x i32>, <16 x i32> addrspace(1)* %pp15, align 64
  %f15 = mul <16 x i32> %mx15, %FNV
  %mx16 = xor <16 x i32> %f15, %par15

  %p.next = add nuw nsw i32 %p, 16
  %more = icmp ult i32 %p.next, 256
  br i1 %more, label %parents, label %store

store:
  ; table[j] = lowbias32(mix)
  %e.s1 = lshr <16 x i32> %mx16, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %e.x1 = xor <16 x i32> %mx16, %e.s1
  %e.x2 = mul <16 x i32> %e.x1, <i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005>
  %e.s3 = lshr <16 x i32> %e.x2, <i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15>
  %e.x3 = xor <16 x i32> %e.x2, %e.s3
  %e.x4 = mul <16 x i32> %e.x3, <i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035>
  %e.s5 = lshr <16 x i32> %e.x4, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %item = xor <16 x i32> %e.x4, %e.s5
  %tp = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %table, i64 %j64
  store <16 x i32> %item, <16 x i32> addrspace(1)* %tp, align 64
  br label %exit

exit:
  ret void
}

define void @memwalk_walk(i32* noalias readonly %gtable, i32* noalias %gstates, i32* noalias %gout, i32 %items, i32 %count, i32 %seg_first, i32 %seg_count, i32 %seg_steps) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid64 = zext i32 %ctaid to i64
  %ntid64 = zext i32 %ntid to i64
  %tid64 = zext i32 %tid to i64
  %base = mul i64 %ctaid64, %ntid64
  %lane = add i64 %base, %tid64
  %count64 = zext i32 %count to i64
  %in = icmp ult i64 %lane, %count64
  br i1 %in, label %init, label %exit

init:
  %table.g = addrspacecast i32* %gtable to i32 addrspace(1)*
  %states.g = addrspacecast i32* %gstates to i32 addrspace(1)*
  %out.g = addrspacecast i32* %gout to i32 addrspace(1)*
  %table = bitcast i32 addrspace(1)* %table.g to <16 x i32> addrspace(1)*
  %states = bitcast i32 addrspace(1)* %states.g to <8 x i32> addrspace(1)*
  %out = bitcast i32 addrspace(1)* %out.g to <8 x i32> addrspace(1)*
  %fnvp.0 = insertelement <8 x i32> undef, i32 16777619, i32 0
  %FNV = shufflevector <8 x i32> %fnvp.0, <8 x i32> undef, <8 x i32> zeroinitializer
  %sp = getelementptr inbounds <8 x i32>, <8 x i32> addrspace(1)* %states, i64 %lane
  %s0 = load <8 x i32>, <8 x i32> addrspace(1)* %sp, align 32
  %t0 = mul i32 %seg_first, %seg_steps
  %seg_count64 = zext i32 %seg_count to i64
  %obase = mul i64 %lane, %seg_count64
  br label %segment

segment:
  %k = phi i32 [ 0, %init ], [ %k.next, %segment.end ]
  %ts = phi i32 [ %t0, %init ], [ %t.next, %segment.end ]
  %ss = phi <8 x i32> [ %s0, %init ], [ %s.next, %segment.end ]
  %tend = add i32 %ts, %seg_steps
  br label %step

; Step t: item = table[fnv(t ⊕ s[0], s[t mod 8]) mod items];
; s[w] = lowbias32(fnv(s[w], item[w]) ⊕ item[w+8]).
step:
  %t = phi i32 [ %ts, %segment ], [ %t.next, %step ]
  %s = phi <8 x i32> [ %ss, %segment ], [ %s.next, %step ]
  %v0 = extractelement <8 x i32> %s, i32 0
  %v1 = extractelement <8 x i32> %s, i32 1
  %v2 = extractelement <8 x i32> %s, i32 2
  %v3 = extractelement <8 x i32> %s, i32 3
  %v4 = extractelement <8 x i32> %s, i32 4
  %v5 = extractelement <8 x i32> %s, i32 5
  %v6 = extractelement <8 x i32> %s, i32 6
  %v7 = extractelement <8 x i32> %s, i32 7
  ; s[t mod 8] by a tree of selects on t's low bits (a dynamic index
  ; would put the state in local memory)
  %b0i = and i32 %t, 1
  %b0 = icmp ne i32 %b0i, 0
  %b1i = and i32 %t, 2
  %b1 = icmp ne i32 %b1i, 0
  %b2i = and i32 %t, 4
  %b2 = icmp ne i32 %b2i, 0
  %v01 = select i1 %b0, i32 %v1, i32 %v0
  %v23 = select i1 %b0, i32 %v3, i32 %v2
  %v45 = select i1 %b0, i32 %v5, i32 %v4
  %v67 = select i1 %b0, i32 %v7, i32 %v6
  %v03 = select i1 %b1, i32 %v23, i32 %v01
  %v47 = select i1 %b1, i32 %v67, i32 %v45
  %vt = select i1 %b2, i32 %v47, i32 %v03
  %tx = xor i32 %t, %v0
  %ta = mul i32 %tx, 16777619
  %h = xor i32 %ta, %vt
  %idx = urem i32 %h, %items
  %idx64 = zext i32 %idx to i64
  %ip = getelementptr inbounds <16 x i32>, <16 x i32> addrspace(1)* %table, i64 %idx64
  %item = load <16 x i32>, <16 x i32> addrspace(1)* %ip, align 64
  %lo = shufflevector <16 x i32> %item, <16 x i32> undef, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %hi = shufflevector <16 x i32> %item, <16 x i32> undef, <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %f = mul <8 x i32> %s, %FNV
  %g = xor <8 x i32> %f, %lo
  %x0 = xor <8 x i32> %g, %hi
  %s1 = lshr <8 x i32> %x0, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %x1 = xor <8 x i32> %x0, %s1
  %x2 = mul <8 x i32> %x1, <i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005, i32 2146121005>
  %s3 = lshr <8 x i32> %x2, <i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15, i32 15>
  %x3 = xor <8 x i32> %x2, %s3
  %x4 = mul <8 x i32> %x3, <i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035, i32 2221713035>
  %s5 = lshr <8 x i32> %x4, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %s.next = xor <8 x i32> %x4, %s5
  %t.next = add i32 %t, 1
  %step.more = icmp ne i32 %t.next, %tend
  br i1 %step.more, label %step, label %segment.end

segment.end:
  ; out[lane·seg_count + k] = the state after this segment
  %k64 = zext i32 %k to i64
  %oi = add i64 %obase, %k64
  %op = getelementptr inbounds <8 x i32>, <8 x i32> addrspace(1)* %out, i64 %oi
  store <8 x i32> %s.next, <8 x i32> addrspace(1)* %op, align 32
  %k.next = add i32 %k, 1
  %seg.more = icmp ne i32 %k.next, %seg_count
  br i1 %seg.more, label %segment, label %done

done:
  store <8 x i32> %s.next, <8 x i32> addrspace(1)* %sp, align 32
  br label %exit

exit:
  ret void
}

!nvvm.annotations = !{!0, !1}
!0 = !{void (i32*, i32*, i32, i32)* @memwalk_build, !"kernel", i32 1}
!1 = !{void (i32*, i32*, i32*, i32, i32, i32, i32, i32)* @memwalk_walk, !"kernel", i32 1}
