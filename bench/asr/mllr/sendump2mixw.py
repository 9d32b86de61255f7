# Python 3 port of sphinxtrain's sendump.py and s3mixw writer: expands the en-us model's quantised sendump into the
# mixture_weights file Baum-Welch (bw) needs. Used by probe.sh only (an experiment, not part of the service).
import struct, sys, numpy
def main(inp, out):
    fh = open(inp, 'rb'); fmt = ['I']
    def u(s):
        n = struct.unpack(fmt[0], s)[0]
        if n > 65536:
            fmt[0] = '!I'; n = struct.unpack(fmt[0], s)[0]
        return n
    def rs():
        n = u(fh.read(4))
        return None if n == 0 else fh.read(n)[:-1].decode()
    rs()
    h = {'mixture_count':0,'model_count':0,'mixw_shift':10,'cluster_bits':8,'feature_count':0,'cluster_count':0}
    while True:
        x = rs()
        if x is None: break
        k = x.split()[0]
        if k in h: h[k] = int(x.split()[1])
    if h['cluster_count'] == 0:
        h['model_count'] = u(fh.read(4)); h['mixture_count'] = u(fh.read(4))
    mc, fc, dc = h['mixture_count'], h['feature_count'], h['model_count']
    print(h)
    opdf = numpy.empty((mc, fc, dc))
    for i in range(fc):
        for j in range(dc):
            m = numpy.frombuffer(fh.read(mc), 'B').astype('i') << h['mixw_shift']
            opdf[:, i, j] = numpy.power(1.0001, -m)
    o = open(out, 'wb')
    hdr = b's3\nversion 1.0\n'
    lsb = (len(hdr) + len(b'endhdr\n')) & 3
    hdr += (b' ' * (4 - lsb) if lsb else b'') + b'endhdr\n'
    o.write(hdr); o.write(struct.pack('=i', 0x11223344))
    o.write(struct.pack('=IIII', mc, fc, dc, mc * fc * dc)); opdf.ravel().astype('f').tofile(o)
main(sys.argv[1], sys.argv[2])
