#!/bin/sh
# QsFutilityMargin 316 (the shipped default) against 100, alone, at the tuning limit, on 2000 fresh openings
exec nice -n 10 /work/qs/ratchet-tune match \
  -engine cmd=/work/night4/bin/ratchet name=qs316 \
  -engine cmd=/work/night4/bin/ratchet name=qs100 option.QsFutilityMargin=100 \
  -each tc=2+0.02 nodestime=500 \
  -openings file=/work/qs/qs-fresh.epd order=sequential \
  -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 twosided=true \
  -rounds 2000 -games 2 -concurrency 2 -srand 20261202 \
  -pgnout file=/work/qs/qs.pgn -report file=/work/qs/qs.html
