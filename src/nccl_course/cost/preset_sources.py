"""Where the presets' numbers come from: one citation per fact (datasheets, cloud documentation,
NCCL's source at a tagged release), quoted by :mod:`nccl_course.cost.presets` in each preset's
``source`` and printed by ``nccl-course model --list-presets``."""

SOURCE_NVLINK4 = (
    "NVLink 4 on H100/H200 SXM: 18 links, 900 GB/s bidirectional = 450 GB/s per direction "
    "(NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/)"
)
SOURCE_TUNING = (
    "NCCL per-hop latency estimates, LL protocol: NVLink ring 0.6 us, network ring 2.7 us "
    "(NVIDIA/nccl src/graph/tuning.cc, https://github.com/NVIDIA/nccl)"
)
SOURCE_NVLS = (
    "NVLS (NVLink SHARP) all-reduce: NCCL 2.17+, needs 3rd-generation NVSwitch and Hopper or newer "
    "(NCCL 2.17 release notes, https://docs.nvidia.com/deeplearning/nccl/release-notes/)"
)
SOURCE_PCIE = (
    "PCIe x16 per direction: Gen5 32 GT/s ~63 GB/s, Gen4 16 GT/s ~31.5 GB/s after 128b/130b "
    "encoding (PCI-SIG specifications, https://pcisig.com/specifications); alpha 1 us assumed"
)
SOURCE_NVLINK3 = (
    "NVLink 3 on A100 SXM: 12 links, 600 GB/s bidirectional = 300 GB/s per direction "
    "(NVIDIA A100 datasheet, https://www.nvidia.com/en-us/data-center/a100/)"
)
SOURCE_NVLINK5 = (
    "NVLink 5 on B200: 18 links, 1.8 TB/s bidirectional = 900 GB/s per direction "
    "(NVIDIA DGX B200 / Blackwell pages, https://www.nvidia.com/en-us/data-center/dgx-b200/)"
)
SOURCE_NCCL_TOPO = (
    "NCCL 2.30.7's view of the node: GB/s per NVLink by compute capability (20 for sm_80, "
    "20.6 for sm_90, 40.1 for sm_100; src/graph/topo.h), PCIe lanes x rate / 80 "
    "(src/graph/topo.cc), NIC Mb/s / 8000 (https://github.com/NVIDIA/nccl/tree/v2.30.7-1)"
)
SOURCE_NDR = (
    "InfiniBand NDR: 400 Gb/s = 50 GB/s per port, one NIC per GPU (8 per node), rail-optimised "
    "(NVIDIA ConnectX-7 / Quantum-2 product pages, https://www.nvidia.com/en-us/networking/)"
)
SOURCE_ROCE = (
    "RoCE v2 at 400 GbE = 50 GB/s per port, one NIC per GPU (8 per node); NCCL's tuning model "
    "uses the same network latency for IB and RoCE (NVIDIA/nccl src/graph/tuning.cc, "
    "https://github.com/NVIDIA/nccl)"
)

SOURCE_NVL72 = (
    "GB200 NVL72: 72 Blackwell GPUs in one NVLink domain, each with 18 NVLink 5 links of "
    "100 GB/s (1.8 TB/s bidirectional = 900 GB/s per direction), 130 TB/s in the rack "
    "through NVLink Switch trays (NVIDIA NVLink and NVLink Switch page, "
    "https://www.nvidia.com/en-us/data-center/nvlink/)"
)
SOURCE_MNNVL = (
    "Multi-node NVLink in NCCL: NCCL_MNNVL_ENABLE since 2.21 (default 2, automatic; "
    "docs/userguide/source/env.rst); with MNNVL NCCL fuses the topologies of the clique's hosts "
    "and tunes the NVLink domain as one node (src/graph/topo.cc lines 1887-1891, src/init.cc "
    "lines 1285-1296, NVIDIA/nccl v2.30.7-1); GB200 MNNVL supported from NCCL 2.25.2 "
    "(https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/nccl.html)"
)
SOURCE_XDR = (
    "InfiniBand XDR: 4 lanes x 200000 Mb/s = 800 Gb/s = 100 GB/s per port (NCCL's ibvSpeeds, "
    "src/transport/net_ib/init.cc, NVIDIA/nccl v2.30.7-1); ConnectX-8 SuperNIC: 800 Gb/s XDR "
    "(https://docs.nvidia.com/networking/display/connectx8firmwarev40440208/changes+and+new+features); "
    "NIC and GPU on PCIe Gen6 x16 (64 GT/s, https://pcisig.com/specifications) is this "
    "preset's assumption: one Gen5 x16 link (about 63 GB/s) cannot feed 100 GB/s"
)


SOURCE_HDR = (
    "InfiniBand HDR: 4 lanes x 50000 Mb/s = 200 Gb/s = 25 GB/s per port (NCCL's ibvSpeeds, "
    "src/transport/net_ib/init.cc lines 117-127, NVIDIA/nccl v2.30.7-1); NVIDIA DGX A100: 8 "
    "A100 SXM on NVSwitch, 8 single-port ConnectX-6 200 Gb/s HDR InfiniBand for the compute "
    "fabric (one per GPU), PCIe Gen4, 2x AMD EPYC 7742 "
    "(https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html)"
)
SOURCE_ROCE_200 = (
    "RoCE v2 at 200 GbE = 25 GB/s per port, one NIC per GPU on the DGX A100 node "
    "(ConnectX-6 VPI runs InfiniBand or Ethernet, "
    "https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html); NCCL drives "
    "RoCE with its IB verbs transport and its tuning model uses the same network latency for IB "
    "and RoCE (src/graph/tuning.cc, NVIDIA/nccl v2.30.7-1)"
)
SOURCE_AMD_HOST = (
    "AMD host CPUs in NCCL's tuner: 2 us of network overhead per ring step instead of 1 "
    "(getNetOverhead, src/graph/tuning.cc lines 228-233) and the AMD row of llMaxBws between "
    "nodes (lines 268-271), NVIDIA/nccl v2.30.7-1, "
    "https://github.com/NVIDIA/nccl/blob/v2.30.7-1/src/graph/tuning.cc"
)
SOURCE_P5 = (
    "AWS p5.48xlarge: 8 H100 80GB on NVSwitch, 3200 Gbps EFA (EFAv2) over 32 network cards of "
    "100 Gbps, 3rd-generation AMD EPYC (https://aws.amazon.com/ec2/instance-types/p5/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_P5EN = (
    "AWS p5en.48xlarge: 8 H200 141GB on NVSwitch, 3200 Gbps EFAv3 over 16 network cards of "
    "200 Gbps, Intel Xeon (Sapphire Rapids) host, PCIe Gen5 "
    "(https://aws.amazon.com/ec2/instance-types/p5/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_P6_B200 = (
    "AWS p6-b200.48xlarge: 8 B200 on NVSwitch (NVLink 5), 3200 Gbps EFAv4 over 8 network cards "
    "of 400 Gbps, Intel Xeon (Emerald Rapids) host, PCIe Gen5 "
    "(https://aws.amazon.com/ec2/instance-types/p6/, "
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html)"
)
SOURCE_AWS_OFI = (
    "NCCL reaches EFA through the aws-ofi-nccl net plugin, which groups the EFA devices nearest "
    "each GPU into one NCCL device with one rail per EFA device (src/nccl_ofi_topo.cpp, "
    "create_groups_from_info_list: one group per GPU), reports the first rail's speed times the "
    "rails (src/nccl_ofi_rdma.cpp, get_properties: 'Scale speed by the total number of rails') "
    "and widens that device's PCIe link in the topology it gives NCCL up to the GPU's (write_nic): "
    "NCCL sees 8 NICs of 400 Gb/s on p5 (4 x 100), p5en (2 x 200) and p6-b200 (1 x 400) "
    "(https://github.com/aws/aws-ofi-nccl). Not modelled: the latency the plugin reports "
    "(75 us on p5, 35 us on p5en and p6-b200, src/platform-aws.cpp), which NCCL adds to every "
    "network step (src/graph/search.cc line 745, src/graph/tuning.cc lines 389-391) but "
    "NcclHardware cannot express, and the plugin's own tuner (src/tuner/, for p5, p5e, p5en)"
)
SOURCE_A3_ULTRA = (
    "Google Cloud A3 Ultra (a3-ultragpu-8g): 8 H200 141GB on NVSwitch, 8 NVIDIA ConnectX-7 "
    "400 Gbps NICs with RDMA over Converged Ethernet, 3,200 Gbps for the GPUs, Intel Xeon "
    "(Emerald Rapids) host (https://cloud.google.com/compute/docs/accelerator-optimized-machines, "
    "https://cloud.google.com/ai-hypercomputer/docs/create/create-vm); NCCL drives the NICs "
    "with its IB verbs transport (Google's gIB plugin packages it)"
)
SOURCE_A4 = (
    "Google Cloud A4 (a4-highgpu-8g): 8 B200 on NVSwitch (NVLink 5), 8 NVIDIA ConnectX-7 "
    "400 Gbps NICs with RDMA over Converged Ethernet, 3,200 Gbps for the GPUs "
    "(https://cloud.google.com/compute/docs/accelerator-optimized-machines); NCCL drives the "
    "NICs with its IB verbs transport through Google's gIB plugin, as on A3 Ultra"
)
SOURCE_A3_MEGA = (
    "Google Cloud A3 Mega (a3-megagpu-8g): 8 H100 80GB on NVSwitch, 8 GPU NICs of 200 Gbps "
    "with GPUDirect-TCPXO, 1,600 Gbps for the GPUs (1,800 Gbps with the host NIC), Intel Xeon "
    "(Sapphire Rapids) host (https://cloud.google.com/compute/docs/accelerator-optimized-machines, "
    "https://cloud.google.com/compute/docs/gpus/gpudirect)"
)
SOURCE_TCPXO = (
    "GPUDirect-TCPXO reaches NCCL through Google's FasTrak net plugin (NCCL_FASTRAK_IFNAME lists "
    "the 8 GPU NICs); Google's documented environment sets NCCL_NVLS_ENABLE=0, "
    "NCCL_ALGO=Ring,Tree, NCCL_PROTO=Simple and Google's tuner plugin "
    "(https://cloud.google.com/cluster-toolkit/docs/machine-learning/a3-mega-enable-gpudirect-tcpxo; "
    "GoogleCloudPlatform/cluster-toolkit examples/machine-learning/a3-megagpu-8g). This preset has "
    "NVLS off; the Ring,Tree and Simple restriction is the algo and proto of predict, and the "
    "tuner plugin is not modelled. The plugin ships as a container image "
    "(us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev, as in "
    "GoogleCloudPlatform/slurm-gcp pull request 276); no published figure says what port "
    "speed it reports to NCCL, so 200 Gb/s per NIC as NCCL's port speed is this preset's "
    "assumption from the NIC speed"
)
SOURCE_DGX_B200 = (
    "NVIDIA DGX B200: 8 B200 on NVSwitch (NVLink 5), 8 ConnectX-7 400 Gb/s NDR ports for the "
    "compute fabric (one per GPU), PCIe Gen5, 2x Intel Xeon Platinum 8570 "
    "(https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html); NDR = "
    "4 x 100000 Mb/s = 50 GB/s in NCCL's view (src/transport/net_ib/init.cc lines 117-127, "
    "NVIDIA/nccl v2.30.7-1)"
)
SOURCE_GB200_TRAY = (
    "GB200 NVL72 compute tray: 2 Grace CPUs and 4 B200 GPUs, each GPU with 18 NVLink 5 links to "
    "the rack's NVLink Switch trays, and 4 ConnectX-7 400 Gb/s NICs, one per GPU "
    "(https://www.nvidia.com/en-us/data-center/gb200-nvl72/, "
    "https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/nccl.html). With "
    "NCCL_MNNVL_ENABLE=0 NCCL keeps each host's topology apart (src/graph/topo.cc lines "
    "1887-1891): a node of 4 GPUs on one NVSwitch, the network between trays; NDR 400 Gb/s = "
    "4 x 100000 Mb/s = 50 GB/s per NIC in NCCL's view (src/transport/net_ib/init.cc lines "
    "117-127, NVIDIA/nccl v2.30.7-1)"
)
SOURCE_GRACE = (
    "Grace is an Arm CPU, which NcclHardware cannot name: NCCL's tuner gives Arm the network "
    "overhead and the llMaxBws row of Intel (src/graph/tuning.cc lines 228-233, 268-271), so "
    "cpu_vendor is 'Intel' here; NCCL skips the NVLSTree correction factor on non-x86 hosts "
    "(lines 643-646), which this model still applies; the NIC-to-GPU path through Grace (PCIe "
    "Gen5 to the NIC, NVLink-C2C to the GPU) is modelled as PCIe Gen5 x16 (NVIDIA/nccl v2.30.7-1, "
    "https://github.com/NVIDIA/nccl/blob/v2.30.7-1/src/graph/tuning.cc)"
)
SOURCE_GB300 = (
    "GB300 NVL72: 72 Blackwell Ultra GPUs in one NVLink domain, NVLink 5 at 1.8 TB/s per GPU "
    "(900 GB/s per direction) through NVLink Switch trays "
    "(https://www.nvidia.com/en-us/data-center/gb300-nvl72/); Blackwell Ultra is compute "
    "capability 10.3 (https://developer.nvidia.com/cuda-gpus), which NCCL 2.30.7 treats as "
    "sm_100 wherever it compares the compute capability (NVLink 40.1 GB/s per link, "
    "src/graph/topo.h lines 274-282; Blackwell row of the tuning tables, src/graph/tuning.cc "
    "lines 263-265; Blackwell NVLS channels, src/transport/nvls.cc)"
)
SOURCE_L40S = (
    "NVIDIA L40S: Ada Lovelace, compute capability 8.9, PCIe Gen4 x16 (64 GB/s bidirectional), "
    "no NVLink (https://www.nvidia.com/en-us/data-center/l40s/, "
    "https://developer.nvidia.com/cuda-gpus)"
)
SOURCE_PCIE_P2P = (
    "PCIe peer-to-peer in NCCL: used between GPUs at most PXB apart (behind PCIe switches, not "
    "across the CPU) when NVML reports P2P read and write OK; otherwise NCCL routes GPU-to-GPU "
    "traffic through the CPU (src/graph/paths.cc lines 356-410 and 766-770, NVIDIA/nccl "
    "v2.30.7-1). NVIDIA's L40S pages do not state PCIe P2P either way (on the GeForce RTX 4090, "
    "the same AD102 chip, the driver disables it); users of 8x L40S servers report NCCL's P2P "
    "working once PCIe ACS and the IOMMU let it through (NVIDIA developer forum, "
    "https://forums.developer.nvidia.com/t/nccl-hangs-on-l40s-gpus-pcie-resolved-via-iommu-passthrough/368169; "
    "NCCL troubleshooting, "
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html; check with "
    "nvidia-smi topo -p2p p). This preset assumes P2P on and all 8 GPUs behind PCIe switches; "
    "GPUs on CPU root ports across sockets (SYS) go through the CPU, which it does not model"
)
SOURCE_A100_PCIE = (
    "NVIDIA A100 PCIe 40GB: Ampere, compute capability 8.0, PCIe Gen4 x16, no NVLink bridge in "
    "this box (https://www.nvidia.com/en-us/data-center/a100/, "
    "https://developer.nvidia.com/cuda-gpus)"
)
SOURCE_XEON_2SOCKET = (
    "The 4x A100 PCIe box of xyxxxxx/panoramic (machine sm02 of "
    "https://github.com/xyxxxxx/panoramic/blob/88aa6b5a914e0ca964671dbee0ed05eec5f50628/docs/ml/dl/hardware-platform.md): "
    "nvidia-smi topo prints every GPU pair SYS, GPUs 0-1 on NUMA node 0 and 2-3 on node 1, 10 "
    "cores (20 threads) per node, and the GPUs at PCI buses 0x18, 0x3b, 0x86 and 0xaf: the "
    "buses right behind the PCIe 3.0 root ports that two-socket Intel Xeon Scalable platforms "
    "(Skylake-SP, Cascade Lake) usually number 0x17, 0x3a, 0x85 and 0xae. The page does not name "
    "the CPU; this preset assumes that host: NCCL's Skylake class (CPUID model 0x55 and later, up "
    "to Ice Lake) and "
    "PCIe Gen3 x16 links (NCCL takes the slower of the GPU's and its port's speed, "
    "src/graph/xml.cc lines 682-688); the same page's p2pBandwidthLatencyTest, 10.7-11.4 GB/s "
    "one way through host memory, fits a Gen3 link. A Gen4 host of the same class prices the "
    "same: the link between the sockets, not PCIe, sets the rings' speed"
)
SOURCE_L40S_NODE = (
    "The 2 x 2 L40S run of schmaustech/nvidia-tools-image ('NCCL Test Example' of "
    "https://github.com/schmaustech/nvidia-tools-image/blob/fa99fe108d41496a40e20d7530f03636592899f6/README.md): in each "
    "node the L40S are at PCI buses 0x61 and 0xe1 and NCCL is given 2 RDMA devices, mlx5_2 and "
    "mlx5_8, which the page's mst listing shows as SR-IOV functions 37:00.1 and 37:00.7 of one "
    "single-port ConnectX-7 (MCX715105AS-WEAT: 400GbE, PCIe 5.0 x16) on NUMA node 0. Buses "
    "0x61 and 0xe1 under root buses 0x60 and 0xe0 are the numbering of a two-socket AMD EPYC "
    "host (0x00-0x7f on the first socket, 0x80-0xff on the second); this preset takes that "
    "host, one GPU per socket on its own root port and the NIC on the first socket, which the "
    "page does not print. The VFs report their port's 400 Gb/s, so NCCL counts 2 NICs of 50 GB/s "
    "although they share one port"
)
SOURCE_NCCL_SOCKETS = (
    "NCCL 2.30.7 (and 2.27.3, the same rules) on GPUs and NICs behind CPUs: PCIe peer-to-peer "
    "only up to PXB (behind PCIe switches), or up to SYS on AMD x86 hosts with at most 2 GPUs "
    "(ncclTopoCheckP2p, src/graph/paths.cc lines 355-368); otherwise GPU-to-GPU traffic goes "
    "through the CPU's memory, the SHM transport (lines 762-792). GPUDirect RDMA only up to "
    "NCCL_NET_GDR_LEVEL = PXB (ncclTopoCheckGdr, lines 510-535), so a NIC on a CPU root port "
    "sends and receives through host buffers (lines 844-855). The link between two sockets "
    "counts 10 GB/s on Skylake-class Intel CPUs, 22 on Sapphire Rapids, 40 on Emerald Rapids, "
    "6 on older ones, 16 on AMD (src/graph/topo.h lines 26-30, src/graph/topo.cc lines 60-83 "
    "and 744-751), and a path through an Intel root complex loads PCIe with 6/5 of its "
    "bandwidth (topo.h line 39, src/graph/search.cc lines 86-92); the ring search then keeps "
    "one channel where a ring must cross that link both ways "
    "(https://github.com/NVIDIA/nccl/tree/v2.30.7-1)"
)
