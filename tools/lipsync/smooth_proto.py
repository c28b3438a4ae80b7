#!/usr/bin/env python3
"""Research aid (issue 39): does smoothing the power spectrum across harmonics (a moving
average of fixed width) before the mel bands make the cepstra more voice-independent? Not
part of the product.

usage: smooth_proto.py TRAIN_DIR SYLLABLES_DIR SPEECH_DIR   (NumPy)

The analyser's features are rebuilt in NumPy (25 ms Hann, 24 mel bands 100-4000 Hz, c1..c12).
One Gaussian per class with a shared covariance is learnt from TRAIN_DIR's synthetic labelled
clips (each voice minus its mean); vowel frames are read among the five vowels on the
syllables (each speaker minus its mean; no real voice is in training) and on SPEECH_DIR's
groups. Results: crate's EVALUATION.md, "Two feature ideas".
"""
import sys, os, wave, csv, glob, re
import numpy as np
SR=16000; WIN=400; HOP=160; NFFT=512
def read(p):
    w=wave.open(p); x=np.frombuffer(w.readframes(w.getnframes()),dtype=np.int16).astype(np.float64)/32768
    if w.getnchannels()>1: x=x.reshape(-1,w.getnchannels()).mean(1)
    sr=w.getframerate()
    if sr!=SR:
        n2=int(round(len(x)*SR/sr)); X=np.fft.rfft(x)
        if n2//2+1<=len(X): X=X[:n2//2+1]
        else: X=np.concatenate([X,np.zeros(n2//2+1-len(X))])
        x=np.fft.irfft(X,n2)*(n2/len(x))
    return x
def hz2mel(f): return 2595*np.log10(1+f/700)
def mel2hz(m): return 700*(10**(m/2595)-1)
edges=mel2hz(np.linspace(hz2mel(100),hz2mel(4000),26))
fb=np.zeros((24,NFFT//2+1)); fr=np.arange(NFFT//2+1)*SR/NFFT
for b in range(24):
    l,c,h=edges[b:b+3]
    fb[b]=np.clip(np.minimum((fr-l)/(c-l),(h-fr)/(h-c)),0,None)
DCT=np.cos(np.pi/24*(np.arange(24)[None,:]+0.5)*np.arange(1,13)[:,None])
HANN=0.5-0.5*np.cos(2*np.pi*(np.arange(WIN)+0.5)/WIN)
def feats(x,smooth_bins):
    x=np.append(x[0],x[1:]-0.97*x[:-1])
    n=1+max(0,(len(x)-WIN)//HOP)
    F=x[np.arange(WIN)[None,:]+HOP*np.arange(n)[:,None]]*HANN
    P=np.abs(np.fft.rfft(F,NFFT))**2
    if smooth_bins>0:
        k=np.ones(2*smooth_bins+1)/(2*smooth_bins+1)
        P=np.apply_along_axis(lambda r: np.convolve(r,k,'same'),1,P)
    E=P@fb.T
    lev=10*np.log10(P.sum(1)+1e-12)
    return np.log(E+1e-10)@DCT.T, lev
def labelled(dir_, pat="*.wav"):
    out=[]
    for w in sorted(glob.glob(os.path.join(dir_,pat))):
        lab=w[:-4]+".lab.tsv"
        if not os.path.exists(lab): continue
        segs=[(float(r['start']),float(r['end']),r['class']) for r in csv.DictReader(open(lab),delimiter='\t')]
        out.append((w,segs))
    return out
def frame_labels(segs,n):
    y=np.full(n,-1)
    for s,e,c in segs:
        if c not in "AIUEON": continue
        a=int(np.ceil((s+0.015-0.0125)/0.01)); b=int(np.floor((e-0.015-0.0125)/0.01))
        y[max(a,0):max(min(b+1,n),0)]="AIUEON".index(c)
    return y
def voice(w):
    s=os.path.basename(w)[:-4]; return s[:s.rfind('_')]
def run(sm):
    # training
    byv={}
    for w,segs in labelled(sys.argv[1]):
        C,lev=feats(read(w),sm); y=frame_labels(segs,len(C))
        byv.setdefault(voice(w),[]).append((C,y,lev))
    X=[];Y=[]
    for v,items in byv.items():
        allC=np.vstack([C[lev>lev.max()-40] for C,y,lev in items]); mu=allC.mean(0)
        for C,y,lev in items:
            g=y>=0; X.append(C[g]-mu); Y.append(y[g])
    X=np.vstack(X);Y=np.concatenate(Y)
    mus=np.array([X[Y==k].mean(0) for k in range(6)]); R=X-mus[Y]; S=R.T@R/len(X); P=np.linalg.inv(S)
    prior=np.log(np.bincount(Y,minlength=6)/len(Y))
    def cls(Z):
        d=Z[:,None,:]-mus[None]; return (-0.5*np.einsum('fkd,de,fke->fk',d,P,d)+prior)[:, :5].argmax(1)
    res={}
    # syllables: per speaker mean over voiced-ish frames; score last 60% of frames within 30 dB of peak
    root=sys.argv[2]; tot=cor=0; per=[]
    for spk in sorted(os.listdir(root)):
        d=os.path.join(root,spk)
        if not os.path.isdir(d): continue
        rows=[r for r in csv.DictReader(open(os.path.join(d,"vowels.tsv")),delimiter="\t") if r['vowel'] in "AIUEO"]
        items=[]
        for r in rows:
            C,lev=feats(read(os.path.join(d,r['file'])),sm); vi=np.where(lev>lev.max()-35)[0]
            if len(vi)==0: continue
            items.append((C,vi,"AIUEO".index(r['vowel'])))
        mu=np.vstack([C[vi] for C,vi,_ in items]).mean(0)
        c=t=0
        for C,vi,v in items:
            sc=vi[int(0.4*len(vi)):]; p=cls(C[sc]-mu); c+=(p==v).sum(); t+=len(sc)
        per.append(100*c/t); cor+=c; tot+=t
    res['syl']=100*cor/tot; res['syl_mean']=np.mean(per)
    # shared speech groups: per group-voice mean
    groups={}
    for w,segs in labelled(sys.argv[3]):
        g=os.path.basename(w).rsplit('_',1)[0]
        C,lev=feats(read(w),sm); y=frame_labels(segs,len(C)); groups.setdefault(g,[]).append((C,y,lev))
    for g,items in groups.items():
        mu=np.vstack([C[lev>lev.max()-40] for C,y,lev in items]).mean(0); c=t=0
        for C,y,lev in items:
            m=(y>=0)&(y<5); p=cls(C[m]-mu); c+=(p==y[m]).sum(); t+=m.sum()
        res[g]=100*c/max(t,1)
    return res
for sm in [0,3,5,7]:
    r=run(sm); print(f"smooth ±{sm} bins ({sm*31.25:.0f} Hz):", " ".join(f"{k} {v:.1f}" for k,v in r.items()), flush=True)
