#!/bin/sh
# The ablation estimator on the linear fake engine, one line of z-scores per seed
# (docs/results/ablation-calibration.md).  Run in a scratch directory; M is the source tree.
set -e
M=${M:?set M to the Ratchet source tree}
printf 'LmrBase, int, 100, 0, 200, 10, 0.5\nLmrScale, int, 100, 0, 200, 10, 0.5\nNmpDepth, int, 100, 0, 200, 10, 0.5\nRfpMargin, int, 100, 0, 200, 10, 0.5\nSeeMargin, int, 100, 0, 200, 10, 0.5\n' > abl.txt
python3 -c "
import random
r=random.Random(5)
# distinct FENs: kings and a pawn placed differently
seen=set()
out=open('abl.epd','w')
files='abcdefgh'
while len(seen)<5000:
    wk=(r.randrange(8),r.randrange(0,3)); bk=(r.randrange(8),r.randrange(5,8)); p=(r.randrange(8),r.randrange(1,6))
    if len({wk,bk,p})<3: continue
    key=(wk,bk,p)
    if key in seen: continue
    seen.add(key)
    board=[['1']*8 for _ in range(8)]
    board[7-wk[1]][wk[0]]='K'; board[7-bk[1]][bk[0]]='k'; board[7-p[1]][p[0]]='P'
    rows=[]
    for row in board:
        s='';n=0
        for c in row:
            if c=='1': n+=1
            else:
                if n: s+=str(n); n=0
                s+=c
        if n: s+=str(n)
        rows.append(s)
    out.write('/'.join(rows)+' w - - 0 1\n')
"
echo '{"params": {"LmrBase": 150, "LmrScale": 140, "NmpDepth": 130, "RfpMargin": 160}}' > tuned.json
for s in $SEEDS; do
  rm -rf r$s
  $M/bin/ratchet-tune run -engine cmd=$M/build/fake/fakeablate "args=--effect LmrBase=0.002 --effect LmrScale=0.001 --effect NmpDepth=-0.003 --seed $s" \
    -params file=abl.txt -each nodes=1 -openings file=abl.epd order=random -resign movecount=1 score=1000 -maxmoves 1 \
    -validate holdout=0.5 games=0 -spsa games=4 form=far -concurrency 2 -srand $s -out r$s > r$s.log 2>&1
  $M/bin/ratchet-tune verify r$s -ablate -tuned tuned.json -rounds 2400 -srand $s -concurrency 2 > a$s.log 2>&1 || { tail -5 a$s.log; }
  python3 -c "
import json
j=json.load(open('r$s/ablation.json'))
t={'Lmr':2*(0.002*50+0.001*40),'Nmp':2*(-0.003*30),'Rfp':0.0}
print('seed $s', ' '.join('%s z=%+.2f'%(g['name'],(g['beta']-t[g['name']])/g['se']) for g in j['groups']), 'gap', j.get('additivity',{}).get('gap_lo'), j.get('additivity',{}).get('gap_hi'))
"
done
