import re,sys,statistics as st
for f in sys.argv[1:]:
    iv=[]
    for l in open(f):
        m=re.search(r'trace ticks (\d+) (\d+) period ([\d.]+)',l)
        if m: iv.append((int(m[1]),int(m[2]),float(m[3])))
    iv.sort(); per=iv[0][2]
    k=[(e-b)*per/1e6 for b,e,_ in iv]
    gaps=[(iv[i+1][0]-iv[i][1])*per/1e6 for i in range(len(iv)-1)]
    span=(iv[-1][1]-iv[0][0])*per/1e6
    print(f, "n",len(iv),"span",round(span),"kernel sum",round(sum(k)),"med",round(st.median(k),2),"gap med",round(st.median(gaps),2),"gap sum",round(sum(gaps)), "overlaps", sum(g<0 for g in gaps))
