#!/usr/bin/env python3
# Writes selftests/data/topo_2socket_gpu.xml: the hand-written topology (kept as its generator's output).
gp = [100]
def g():
    gp[0] += 1; return gp[0]
def hexmask(cpus):
    m = 0
    for c in cpus: m |= 1 << c
    return "0x%08x" % m
pk = [ {"cpus": [0,1,2,3,8,9,10,11], "node": 0, "mem": 8<<30, "hp": 512, "gpus": ["0000:3b:00.0", "0000:5e:00.0"]},
       {"cpus": [4,5,6,7,12,13,14,15], "node": 1, "mem": 8<<30, "hp": 0, "gpus": ["0000:86:00.0", "0000:af:00.0"]} ]
allc = sorted(sum([p["cpus"] for p in pk], []))
out = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
       '<topology version="2.0">',
       '  <object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" allowed_cpuset="%s" nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003" gp_index="1">' % ((hexmask(allc),)*3)]
for i, p in enumerate(pk):
    cs = hexmask(p["cpus"]); ns = "0x%08x" % (1 << p["node"])
    out.append('    <object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (i, cs, cs, ns, ns, g()))
    out.append('      <object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" local_memory="%d" gp_index="%d">' % (p["node"], cs, cs, ns, ns, p["mem"], g()))
    out.append('        <page_type size="4096" count="%d"/>' % ((p["mem"] - p["hp"] * (2 << 20)) // 4096))
    out.append('        <page_type size="2097152" count="%d"/>' % p["hp"])
    out.append('      </object>')
    for c in p["cpus"]:
        m = hexmask([c])
        out.append('      <object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (c, m, m, ns, ns, g()))
        out.append('        <object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"/>' % (c, m, m, ns, ns, g()))
        out.append('      </object>')
    for bus in p["gpus"]:
        dom, b, rest = bus.split(":")
        out.append('      <object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" bridge_pci="%s:[%s-%s]">' % (g(), dom, b, b))
        out.append('        <object type="PCIDev" gp_index="%d" pci_busid="%s" pci_type="0302 [10de:2335] [10de:18be] a1" pci_link_speed="31.507692">' % (g(), bus))
        out.append('          <info name="PCIVendor" value="NVIDIA Corporation"/>')
        out.append('          <info name="PCIDevice" value="GH100 [H200 SXM 141GB]"/>')
        out.append('        </object>')
        out.append('      </object>')
    out.append('    </object>')
out.append('  </object>')
out.append('</topology>')
print("\n".join(out))
