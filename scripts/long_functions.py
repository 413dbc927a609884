import re,sys,os
res=[]
for root,_,files in os.walk(sys.argv[1]):
    for f in files:
        if not f.endswith('.rs'): continue
        p=os.path.join(root,f); L=open(p).read().split('\n')
        i=0
        while i<len(L):
            if re.match(r'\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+\w+',L[i]):
                depth=0; started=False; j=i
                while j<len(L):
                    s=re.sub(r'"(\\.|[^"\\])*"','""',L[j]); s=re.sub(r"//.*","",s)
                    s=re.sub(r"'(\\.|[^'\\])'","''",s)
                    for c in s:
                        if c=='{': depth+=1; started=True
                        elif c=='}': depth-=1
                    if started and depth<=0: break
                    if not started and s.rstrip().endswith(';'): break
                    j+=1
                n=j-i+1
                if n>80: res.append((n,p,i+1,L[i].strip()[:60]))
                i+=1
            else: i+=1
res.sort(reverse=True)
for r in res: print(*r)
print(len(res))
