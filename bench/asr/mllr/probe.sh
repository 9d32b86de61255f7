#!/bin/sh
# Unsupervised MLLR for the amateur reader (bench/asr/README.md, "Speaker adaptation"): first-pass
# hypotheses of the tuning half → Baum-Welch statistics → one MLLR transform → both halves decoded again.
# Needs: apt-get install sphinxtrain sphinxbase-utils (sphinx_fe), python3 with numpy. Whole files, no VAD.
# Score the .hyp files against ../shared/audio/asr/refs.tsv with src/service/speech/scoring/wer.ts.
set -eu
W=${1:-/tmp/takeline-mllr}; A=${TAKELINE_SHARED_DIR:-$(dirname "$0")/../../../../shared}/audio/asr
M=/usr/share/pocketsphinx/model/en-us; B=/usr/lib/sphinxtrain
F="-remove_silence no -fwdflat no -beam 1e-60 -pl_window 0 -wip 0.2 -topn 8 -silprob 0.001"
mkdir -p "$W/acc"; cd "$W"
cp -r "$M/en-us" hmm; python3 "$(dirname "$0")/sendump2mixw.py" hmm/sendump hmm/mixture_weights
pocketsphinx_mdef_convert -text hmm/mdef hmm/mdef.txt
ls "$A" | grep '^amateur_' | sort | sed 's/\.flac$//' > all.ctl
awk 'NR%2==1' all.ctl > tune.ctl; awk 'NR%2==0' all.ctl > test.ctl   # bench/lib/halves.ts
for b in $(cat all.ctl); do ffmpeg -loglevel error -y -i "$A/$b.flac" -ar 16000 -ac 1 -f s16le "$b.raw"; ffmpeg -loglevel error -y -i "$A/$b.flac" -ar 16000 -ac 1 "$b.wav"; done
decode() { pocketsphinx_batch -hmm "$M/en-us" -dict "$M/cmudict-en-us.dict" -lm "$M/en-us.lm.bin" -ctl "$1" -adcin yes -cepdir . -cepext .raw $F -hyp "$2" $3 2>/dev/null; }
decode tune.ctl tune1.hyp ""
sed -E 's/^(.*) \((amateur[^ ]*) [-0-9]+\)$/<s> \1 <\/s> (\2)/' tune1.hyp > tune.trans
sphinx_fe -argfile hmm/feat.params -samprate 16000 -c tune.ctl -di . -do . -ei wav -eo mfc -mswav yes 2>/dev/null
$B/bw -hmmdir hmm -moddeffn hmm/mdef.txt -ts2cbfn .ptm. -feat 1s_c_d_dd -svspec 0-12/13-25/26-38 -cmn batch -agc none \
  -dictfn "$M/cmudict-en-us.dict" -fdictfn hmm/noisedict -ctlfn tune.ctl -lsnfn tune.trans -cepdir . -cepext mfc -accumdir acc > bw.log 2>&1
$B/mllr_solve -meanfn hmm/means -varfn hmm/variances -outmllrfn mllr_matrix -accumdir acc > solve.log 2>&1
decode tune.ctl tune2.hyp "-mllr mllr_matrix"
decode test.ctl test1.hyp ""
decode test.ctl test2.hyp "-mllr mllr_matrix"
