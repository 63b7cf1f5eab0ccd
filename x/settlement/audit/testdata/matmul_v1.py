#!/usr/bin/env python3
# Independent pure-Python implementation of idlegpu/matmul-u32/v1 (see matmul.go),
# written from the spec alone. It printed the golden vectors of matmul_test.go;
# run it (about 10 s) to check another implementation against the spec.
import hashlib, struct
N=256; NAME=b"idlegpu/matmul-u32/v1"; M32=0xffffffff
def expand(seed, tag):
    out=[]
    for blk in range(N*N//8):
        out.extend(struct.unpack(">8I",hashlib.sha256(NAME+tag+seed+struct.pack(">I",blk)).digest()))
    return [out[i*N:(i+1)*N] for i in range(N)]
def lowbias(x):
    x^=x>>16; x=(x*0x7feb352d)&M32; x^=x>>15; x=(x*0x846ca68b)&M32; x^=x>>16; return x
def run(seed, units):
    m=expand(seed,b"A"); b=expand(seed,b"B")
    bt=list(zip(*b))
    for r in range(1,units+1):
        m=[[lowbias((sum(map(int.__mul__,row,col))+r)&M32) for col in bt] for row in m]
    return hashlib.sha256(NAME+struct.pack(">Q",units)+b"".join(struct.pack(">%dI"%N,*row) for row in m)).hexdigest()
s1=bytes((1+i)&255 for i in range(32))
print(run(bytes(32),1)); print(run(s1,1)); print(run(s1,3))
print(hashlib.sha256(bytes([1])+bytes(31)+bytes(31)+bytes([2])).hexdigest())
