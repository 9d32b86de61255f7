# Praat's own figures for one sound file, with the standard settings the prosody measures follow:
# To Pitch (ac) 0 (auto: 10 ms), 75, 600 Hz; To PointProcess (periodic, cc) 75, 600;
# Get jitter (local) 0, 0, 0.0001, 0.02, 1.3; Get shimmer (local) 0, 0, 0.0001, 0.02, 1.3, 1.6;
# To Harmonicity (cc) 0.01, 75, 0.1, 1.0 and Get mean 0, 0.
# Prints one line "median_hz jitter shimmer hnr_db" (tab-separated), then "time f0" per pitch frame (0 = unvoiced).
form Measure
  sentence file
endform
sound = Read from file: file$
pitch = To Pitch: 0, 75, 600
median = Get quantile: 0, 0, 0.5, "Hertz"
frames = Get number of frames
selectObject: sound
pulses = To PointProcess (periodic, cc): 75, 600
jitter = Get jitter (local): 0, 0, 0.0001, 0.02, 1.3
selectObject: sound, pulses
shimmer = Get shimmer (local): 0, 0, 0.0001, 0.02, 1.3, 1.6
selectObject: sound
harmonicity = To Harmonicity (cc): 0.01, 75, 0.1, 1.0
hnr = Get mean: 0, 0
writeInfoLine: median, tab$, jitter, tab$, shimmer, tab$, hnr
selectObject: pitch
for i to frames
  t = Get time from frame number: i
  f = Get value in frame: i, "Hertz"
  if f = undefined
    f = 0
  endif
  appendInfoLine: fixed$ (t, 6), tab$, fixed$ (f, 4)
endfor
