#!/usr/bin/env python3
"""mkfixtures.py - writes the offline fixtures (tests/offline/NNNN-*/) from
the formats of nvidia-smi -q text (R470, R535, R550, R570 layouts), -q -x
XML, --query-gpu CSV, the boxed table, lspci -vv, kernel logs, pastes and an
nvidia-bug-report.log.gz.  Run once; the outputs are committed and
tests/offline/run.sh reads them (UPDATE=1 rewrites each expected.txt).

The layouts are written from the formats as the drivers print them (key
names, nesting, units, placeholders); the values are invented.
"""
import gzip
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = {
    "A100": dict(name="NVIDIA A100-SXM4-80GB", mem=81920, plim=400.0, slow=92, shut=97, sm=1410, mem_clk=1593,
                 gen=4, width=16, remap=True, dev="20b2", fan=None),
    "H100": dict(name="NVIDIA H100 80GB HBM3", mem=81559, plim=700.0, slow=87, shut=92, sm=1980, mem_clk=2619,
                 gen=5, width=16, remap=True, dev="2330", fan=None),
    "V100": dict(name="Tesla V100-SXM2-32GB", mem=32768, plim=300.0, slow=87, shut=90, sm=1530, mem_clk=877,
                 gen=3, width=16, remap=False, dev="1db5", fan=None),
    "L40S": dict(name="NVIDIA L40S", mem=46068, plim=350.0, slow=91, shut=96, sm=2520, mem_clk=9001,
                 gen=4, width=16, remap=True, dev="26b9", fan=30),
}

REASONS = ["Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown", "Sync Boost",
           "SW Thermal Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown", "Display Clock Setting"]


def gpu(model, bus, idx, **kw):
    m = MODELS[model]
    g = dict(model=model, bus=bus, idx=idx, util=95, memutil=40, used=30000, temp=62, power=m["plim"] * 0.7,
             limit=m["plim"], default=m["plim"], sm=m["sm"], gen=m["gen"], width=m["width"], reasons=set(),
             ecc_dvol=0, ecc_cvol=0, ecc_dagg=0, ecc_cagg=0, remap_pending=False, remap_fail=False,
             retired_pending=False, sbe=0, dbe=0, procs=[(4711 + idx, 29000)], persist=True, err=set())
    g.update(m)
    g.update(kw)
    return g


def yn(b):
    return "Yes" if b else "No"


def act(b):
    return "Active" if b else "Not Active"


def q_gpu(g, drv):
    """One GPU section of nvidia-smi -q in the layout of driver series drv."""
    L = []
    a = L.append
    a("GPU 00000000:%s" % g["bus"].upper()[5:] if g["bus"].startswith("0000:") else "GPU " + g["bus"])
    a("    Product Name                          : %s" % g["name"])
    a("    Product Brand                         : NVIDIA")
    if drv >= 535:
        a("    Product Architecture                  : %s" % {"A100": "Ampere", "H100": "Hopper", "V100": "Volta", "L40S": "Ada Lovelace"}[g["model"]])
    a("    Display Mode                          : Disabled")
    a("    Display Active                        : Disabled")
    a("    Persistence Mode                      : %s" % ("Enabled" if g["persist"] else "Disabled"))
    if drv >= 535:
        a("    Addressing Mode                       : None")
    a("    MIG Mode")
    a("        Current                           : %s" % ("N/A" if g["model"] in ("V100", "L40S") else "Disabled"))
    a("        Pending                           : %s" % ("N/A" if g["model"] in ("V100", "L40S") else "Disabled"))
    a("    Accounting Mode                       : Disabled")
    a("    Accounting Mode Buffer Size           : 4000")
    a("    Driver Model")
    a("        Current                           : N/A")
    a("        Pending                           : N/A")
    a("    Serial Number                         : 13232210%05d" % g["idx"])
    a("    GPU UUID                              : GPU-%08x-1111-2222-3333-%012x" % (0xdeadbe00 + g["idx"], g["idx"]))
    a("    Minor Number                          : %d" % g["idx"])
    a("    VBIOS Version                         : 92.00.45.00.06")
    a("    MultiGPU Board                        : No")
    a("    Board ID                              : 0x%s" % g["bus"][5:7])
    a("    GPU Part Number                       : 20B2-895-A1")
    a("    Inforom Version")
    a("        Image Version                     : G506.0210.00.03")
    a("        OEM Object                        : 2.0")
    a("        ECC Object                        : 6.16")
    a("        Power Management Object           : N/A")
    a("    GPU Operation Mode")
    a("        Current                           : N/A")
    a("        Pending                           : N/A")
    if drv >= 535:
        a("    GPU C2C Mode                          : N/A")
    a("    GPU Virtualization Mode")
    a("        Virtualization Mode               : None")
    a("        Host VGPU Mode                    : N/A")
    if drv >= 535:
        a("    GPU Reset Status")
        a("        Reset Required                    : %s" % yn(g.get("reset_required", False)))
        a("        Drain and Reset Recommended       : %s" % ("N/A" if not g.get("reset_required") else "No"))
    if drv >= 570:
        a("    GPU Recovery Action                   : None")
    a("    IBMNPU")
    a("        Relaxed Ordering Mode             : N/A")
    a("    PCI")
    a("        Bus                               : 0x%s" % g["bus"][5:7].upper())
    a("        Device                            : 0x00")
    a("        Domain                            : 0x0000")
    a("        Device Id                         : 0x%s10DE" % g["dev"].upper())
    a("        Bus Id                            : 00000000:%s" % g["bus"][5:].upper())
    a("        Sub System Id                     : 0x134F10DE")
    a("        GPU Link Info")
    a("            PCIe Generation")
    a("                Max                       : %d" % MODELS[g["model"]]["gen"])
    a("                Current                   : %d" % g["gen"])
    if drv >= 535:
        a("                Device Current            : %d" % g["gen"])
        a("                Device Max                : %d" % MODELS[g["model"]]["gen"])
        a("                Host Max                  : %d" % MODELS[g["model"]]["gen"])
    a("            Link Width")
    a("                Max                       : %dx" % MODELS[g["model"]]["width"])
    a("                Current                   : %dx" % g["width"])
    a("        Bridge Chip")
    a("            Type                          : N/A")
    a("            Firmware                      : N/A")
    a("        Replays Since Reset               : 0")
    a("        Replay Number Rollovers           : 0")
    a("        Tx Throughput                     : %d KB/s" % (g["util"] * 100))
    a("        Rx Throughput                     : %d KB/s" % (g["util"] * 300))
    if drv >= 535:
        a("        Atomic Caps Inbound               : N/A")
        a("        Atomic Caps Outbound              : N/A")
    a("    Fan Speed                             : %s" % ("N/A" if g["fan"] is None else "%d %%" % g["fan"]))
    a("    Performance State                     : P0")
    r = g["reasons"]
    if drv >= 535:
        a("    Clocks Event Reasons")
        for n in ["Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown"]:
            a("        %-34s: %s" % (n, act(n in r)))
        for n in ["HW Thermal Slowdown", "HW Power Brake Slowdown"]:
            a("            %-30s: %s" % (n, act(n in r)))
        for n in ["Sync Boost", "SW Thermal Slowdown", "Display Clock Setting"]:
            a("        %-34s: %s" % (n, act(n in r)))
    else:
        a("    Clocks Throttle Reasons")
        for n in ["Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown", "HW Thermal Slowdown",
                  "HW Power Brake Slowdown", "Sync Boost", "SW Thermal Slowdown", "Display Clock Setting"]:
            a("        %-34s: %s" % (n, act(n in r)))
    if drv >= 570:
        a("    Clocks Event Reasons Counters")
        a("        SW Power Capping                  : 1234 us")
        a("        Sync Boost                        : 0 us")
        a("        SW Thermal Slowdown               : 0 us")
        a("        HW Thermal Slowdown               : 0 us")
        a("        HW Power Braking                  : 0 us")
    a("    FB Memory Usage")
    a("        Total                             : %d MiB" % g["mem"])
    if drv >= 535:
        a("        Reserved                          : 571 MiB")
    a("        Used                              : %s" % ("%d MiB" % g["used"] if "mem" not in g["err"] else "[Unknown Error]"))
    a("        Free                              : %d MiB" % (g["mem"] - g["used"]))
    a("    BAR1 Memory Usage")
    a("        Total                             : 131072 MiB")
    a("        Used                              : 1 MiB")
    a("        Free                              : 131071 MiB")
    if drv >= 535:
        a("    Conf Compute Protected Memory Usage")
        a("        Total                             : 0 MiB")
        a("        Used                              : 0 MiB")
        a("        Free                              : 0 MiB")
    a("    Compute Mode                          : Default")
    a("    Utilization")
    a("        Gpu                               : %d %%" % g["util"])
    a("        Memory                            : %d %%" % g["memutil"])
    a("        Encoder                           : 0 %")
    a("        Decoder                           : 0 %")
    if drv >= 535:
        a("        JPEG                              : 0 %")
        a("        OFA                               : 0 %")
    a("    Encoder Stats")
    a("        Active Sessions                   : 0")
    a("        Average FPS                       : 0")
    a("        Average Latency                   : 0")
    a("    FBC Stats")
    a("        Active Sessions                   : 0")
    a("        Average FPS                       : 0")
    a("        Average Latency                   : 0")
    ecc_on = g["model"] != "L40S"
    a("    ECC Mode")
    a("        Current                           : %s" % ("Enabled" if ecc_on else "Disabled"))
    a("        Pending                           : %s" % ("Enabled" if ecc_on else "Disabled"))
    a("    ECC Errors")
    for which, c, d in (("Volatile", g["ecc_cvol"], g["ecc_dvol"]), ("Aggregate", g["ecc_cagg"], g["ecc_dagg"])):
        a("        %s" % which)
        if not ecc_on:
            v = ["N/A"] * 4
        else:
            v = [c, d, 0, 0]
        if g["model"] == "V100":
            a("            Single Bit")
            for n in ["Device Memory", "Register File", "L1 Cache", "L2 Cache", "Texture Memory", "Texture Shared", "CBU"]:
                a("                %-26s: %s" % (n, v[0] if n == "Device Memory" else (0 if ecc_on else "N/A")))
            a("                %-26s: %s" % ("Total", v[0]))
            a("            Double Bit")
            for n in ["Device Memory", "Register File", "L1 Cache", "L2 Cache", "Texture Memory", "Texture Shared", "CBU"]:
                a("                %-26s: %s" % (n, v[1] if n == "Device Memory" else (0 if ecc_on else "N/A")))
            a("                %-26s: %s" % ("Total", v[1]))
        elif drv >= 535:
            a("            SRAM Correctable              : %s" % v[2])
            a("            SRAM Uncorrectable Parity     : %s" % v[3])
            a("            SRAM Uncorrectable SEC-DED    : %s" % v[3])
            a("            DRAM Correctable              : %s" % v[0])
            a("            DRAM Uncorrectable            : %s" % v[1])
            if which == "Aggregate":
                a("            SRAM Threshold Exceeded       : No")
        else:
            a("            SRAM Correctable              : %s" % v[2])
            a("            SRAM Uncorrectable            : %s" % v[3])
            a("            DRAM Correctable              : %s" % v[0])
            a("            DRAM Uncorrectable            : %s" % v[1])
    if drv >= 535 and g["model"] != "V100":
        a("        Aggregate Uncorrectable SRAM Sources")
        a("            SRAM L2                       : 0")
        a("            SRAM SM                       : 0")
        a("            SRAM Microcontroller          : 0")
        a("            SRAM PCIE                     : 0")
        a("            SRAM Other                    : 0")
    a("    Retired Pages")
    if g["model"] == "V100":
        a("        Single Bit ECC                    : %d" % g["sbe"])
        a("        Double Bit ECC                    : %d" % g["dbe"])
        a("        Pending Page Blacklist            : %s" % yn(g["retired_pending"]))
    else:
        a("        Single Bit ECC                    : N/A")
        a("        Double Bit ECC                    : N/A")
        a("        Pending Page Blacklist            : N/A")
    a("    Remapped Rows")
    if g["remap"]:
        a("        Correctable Error                 : 0")
        a("        Uncorrectable Error               : %d" % (1 if g["remap_pending"] or g["remap_fail"] else 0))
        a("        Pending                           : %s" % yn(g["remap_pending"]))
        a("        Remapping Failure Occurred        : %s" % yn(g["remap_fail"]))
        a("        Bank Remap Availability Histogram")
        a("            Max                           : 639 bank(s)")
        a("            High                          : 1 bank(s)")
        a("            Partial                       : 0 bank(s)")
        a("            Low                           : 0 bank(s)")
        a("            None                          : 0 bank(s)")
    else:
        a("        Correctable Error                 : N/A")
        a("        Uncorrectable Error               : N/A")
        a("        Pending                           : N/A")
        a("        Remapping Failure Occurred        : N/A")
    a("    Temperature")
    a("        GPU Current Temp                  : %s" % ("%d C" % g["temp"] if "temp" not in g["err"] else "ERR!"))
    if drv >= 535:
        a("        GPU T.Limit Temp                  : N/A")
    a("        GPU Shutdown Temp                 : %d C" % g["shut"])
    a("        GPU Slowdown Temp                 : %d C" % g["slow"])
    a("        GPU Max Operating Temp            : %d C" % (g["slow"] - 2))
    a("        GPU Target Temperature            : N/A")
    a("        Memory Current Temp               : %s" % ("N/A" if g["model"] == "L40S" else "%d C" % (g["temp"] + 5)))
    a("        Memory Max Operating Temp         : %s" % ("N/A" if g["model"] == "L40S" else "95 C"))
    if drv >= 535:
        a("    GPU Power Readings")
        if drv >= 570:
            a("        Average Power Draw                : %.2f W" % g["power"])
            a("        Instantaneous Power Draw          : %.2f W" % (g["power"] + 3))
        else:
            a("        Power Draw                        : %.2f W" % g["power"])
        a("        Current Power Limit               : %.2f W" % g["limit"])
        a("        Requested Power Limit             : %.2f W" % g["limit"])
        a("        Default Power Limit               : %.2f W" % g["default"])
        a("        Min Power Limit                   : 100.00 W")
        a("        Max Power Limit                   : %.2f W" % g["default"])
        a("    GPU Memory Power Readings ")
        a("        Power Draw                        : N/A")
        a("    Module Power Readings")
        a("        Power Draw                        : N/A")
        a("        Current Power Limit               : N/A")
    else:
        a("    Power Readings")
        a("        Power Management                  : Supported")
        a("        Power Draw                        : %.2f W" % g["power"])
        a("        Power Limit                       : %.2f W" % g["limit"])
        a("        Default Power Limit               : %.2f W" % g["default"])
        a("        Enforced Power Limit              : %.2f W" % g["limit"])
        a("        Min Power Limit                   : 100.00 W")
        a("        Max Power Limit                   : %.2f W" % g["default"])
    a("    Clocks")
    a("        Graphics                          : %d MHz" % g["sm"])
    a("        SM                                : %d MHz" % g["sm"])
    a("        Memory                            : %d MHz" % g["mem_clk"])
    a("        Video                             : 1275 MHz")
    a("    Applications Clocks")
    a("        Graphics                          : %d MHz" % MODELS[g["model"]]["sm"])
    a("        Memory                            : %d MHz" % g["mem_clk"])
    a("    Default Applications Clocks")
    a("        Graphics                          : %d MHz" % MODELS[g["model"]]["sm"])
    a("        Memory                            : %d MHz" % g["mem_clk"])
    a("    Deferred Clocks")
    a("        Memory                            : N/A")
    a("    Max Clocks")
    a("        Graphics                          : %d MHz" % MODELS[g["model"]]["sm"])
    a("        SM                                : %d MHz" % MODELS[g["model"]]["sm"])
    a("        Memory                            : %d MHz" % g["mem_clk"])
    a("        Video                             : 1290 MHz")
    a("    Max Customer Boost Clocks")
    a("        Graphics                          : %d MHz" % MODELS[g["model"]]["sm"])
    a("    Clock Policy")
    a("        Auto Boost                        : N/A")
    a("        Auto Boost Default                : N/A")
    a("    Voltage")
    a("        Graphics                          : 868.750 mV")
    if drv >= 535:
        a("    Fabric")
        a("        State                             : N/A")
        a("        Status                            : N/A")
    if not g["procs"]:
        a("    Processes                             : None")
    else:
        a("    Processes")
        for pid, mib in g["procs"]:
            if drv >= 470:
                a("        GPU instance ID                   : N/A")
                a("        Compute instance ID               : N/A")
            a("        Process ID                        : %d" % pid)
            a("            Type                          : C")
            a("            Name                          : python3")
            a("            Used GPU Memory               : %d MiB" % mib)
    return L


def q_text(drv, gpus, attached=None):
    ver = {470: ("470.182.03", "11.4"), 535: ("535.161.08", "12.2"), 550: ("550.54.15", "12.4"),
           570: ("570.124.06", "12.8")}[drv]
    L = ["", "==============NVSMI LOG==============", "",
         "Timestamp                                 : Mon Jun  3 10:15:42 2024",
         "Driver Version                            : %s" % ver[0],
         "CUDA Version                              : %s" % ver[1], "",
         "Attached GPUs                             : %d" % (attached if attached is not None else len(gpus))]
    for g in gpus:
        L += q_gpu(g, drv)
        L.append("")
    return "\n".join(L) + "\n"


def xml_text(gpus, drv=535):
    ev = "event" if drv >= 535 else "throttle"
    names = ["gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "hw_thermal_slowdown",
             "hw_power_brake_slowdown", "sync_boost", "sw_thermal_slowdown", "display_clocks_setting"]
    keys = dict(zip(names, ["Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown",
                            "HW Thermal Slowdown", "HW Power Brake Slowdown", "Sync Boost", "SW Thermal Slowdown",
                            "Display Clock Setting"]))
    o = ['<?xml version="1.0" ?>', '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">', "<nvidia_smi_log>",
         "\t<timestamp>Mon Jun  3 10:15:42 2024</timestamp>", "\t<driver_version>535.161.08</driver_version>",
         "\t<cuda_version>12.2</cuda_version>", "\t<attached_gpus>%d</attached_gpus>" % len(gpus)]
    for g in gpus:
        b = "00000000:" + g["bus"][5:].upper()
        o += ['\t<gpu id="%s">' % b, "\t\t<product_name>%s</product_name>" % g["name"],
              "\t\t<persistence_mode>Enabled</persistence_mode>",
              "\t\t<mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>",
              "\t\t<serial>1323221000%03d</serial>" % g["idx"],
              "\t\t<uuid>GPU-%08x-1111-2222-3333-%012x</uuid>" % (0xdeadbe00 + g["idx"], g["idx"]),
              "\t\t<minor_number>%d</minor_number>" % g["idx"],
              "\t\t<pci>", "\t\t\t<pci_bus_id>%s</pci_bus_id>" % b, "\t\t\t<pci_gpu_link_info>",
              "\t\t\t\t<pcie_gen><max_link_gen>%d</max_link_gen><current_link_gen>%d</current_link_gen></pcie_gen>"
              % (MODELS[g["model"]]["gen"], g["gen"]),
              "\t\t\t\t<link_widths><max_link_width>16x</max_link_width><current_link_width>%dx</current_link_width></link_widths>"
              % g["width"], "\t\t\t</pci_gpu_link_info>", "\t\t\t<replay_counter>0</replay_counter>",
              "\t\t\t<tx_util>1000 KB/s</tx_util>", "\t\t\t<rx_util>2000 KB/s</rx_util>", "\t\t</pci>",
              "\t\t<fan_speed>N/A</fan_speed>", "\t\t<performance_state>P0</performance_state>",
              "\t\t<clocks_%s_reasons>" % ev]
        for n in names:
            o.append("\t\t\t<clocks_%s_reason_%s>%s</clocks_%s_reason_%s>" % (ev, n, act(keys[n] in g["reasons"]), ev, n))
        o += ["\t\t</clocks_%s_reasons>" % ev,
              "\t\t<fb_memory_usage><total>%d MiB</total><reserved>571 MiB</reserved><used>%d MiB</used><free>%d MiB</free></fb_memory_usage>"
              % (g["mem"], g["used"], g["mem"] - g["used"]),
              "\t\t<compute_mode>Default</compute_mode>",
              "\t\t<utilization><gpu_util>%d %%</gpu_util><memory_util>%d %%</memory_util><encoder_util>0 %%</encoder_util></utilization>"
              % (g["util"], g["memutil"]),
              "\t\t<ecc_mode><current_ecc>Enabled</current_ecc><pending_ecc>Enabled</pending_ecc></ecc_mode>",
              "\t\t<ecc_errors><volatile><sram_correctable>0</sram_correctable><sram_uncorrectable_parity>0</sram_uncorrectable_parity>"
              "<sram_uncorrectable_secded>0</sram_uncorrectable_secded><dram_correctable>%d</dram_correctable>"
              "<dram_uncorrectable>%d</dram_uncorrectable></volatile><aggregate><sram_correctable>0</sram_correctable>"
              "<dram_correctable>%d</dram_correctable><dram_uncorrectable>%d</dram_uncorrectable><sram_threshold_exceeded>No</sram_threshold_exceeded></aggregate></ecc_errors>"
              % (g["ecc_cvol"], g["ecc_dvol"], g["ecc_cagg"], g["ecc_dagg"]),
              "\t\t<retired_pages><multiple_single_bit_retirement><retired_count>N/A</retired_count></multiple_single_bit_retirement>"
              "<double_bit_retirement><retired_count>N/A</retired_count></double_bit_retirement><pending_blacklist>N/A</pending_blacklist></retired_pages>",
              "\t\t<remapped_rows><remapped_row_corr>0</remapped_row_corr><remapped_row_unc>0</remapped_row_unc>"
              "<remapped_row_pending>%s</remapped_row_pending><remapped_row_failure>No</remapped_row_failure></remapped_rows>"
              % yn(g["remap_pending"]),
              "\t\t<temperature><gpu_temp>%d C</gpu_temp><gpu_temp_max_threshold>%d C</gpu_temp_max_threshold>"
              "<gpu_temp_slow_threshold>%d C</gpu_temp_slow_threshold></temperature>" % (g["temp"], g["shut"], g["slow"]),
              "\t\t<gpu_power_readings><power_draw>%.2f W</power_draw><current_power_limit>%.2f W</current_power_limit>"
              "<default_power_limit>%.2f W</default_power_limit></gpu_power_readings>" % (g["power"], g["limit"], g["default"]),
              "\t\t<clocks><graphics_clock>%d MHz</graphics_clock><sm_clock>%d MHz</sm_clock><mem_clock>%d MHz</mem_clock></clocks>"
              % (g["sm"], g["sm"], g["mem_clk"]),
              "\t\t<max_clocks><graphics_clock>%d MHz</graphics_clock><sm_clock>%d MHz</sm_clock><mem_clock>%d MHz</mem_clock></max_clocks>"
              % (MODELS[g["model"]]["sm"], MODELS[g["model"]]["sm"], g["mem_clk"]),
              "\t\t<processes>"]
        for pid, mib in g["procs"]:
            o.append("\t\t\t<process_info><gpu_instance_id>N/A</gpu_instance_id><compute_instance_id>N/A</compute_instance_id>"
                     "<pid>%d</pid><type>C</type><process_name>python3</process_name><used_memory>%d MiB</used_memory></process_info>" % (pid, mib))
        o += ["\t\t</processes>", "\t</gpu>"]
    o.append("</nvidia_smi_log>")
    return "\n".join(o) + "\n"


def table_text(gpus, drv=550, errs=()):
    ver = {470: ("470.182.03", "11.4"), 535: ("535.161.08", "12.2"), 550: ("550.54.15", "12.4")}[drv]
    o = ["Mon Jun  3 10:15:42 2024       ",
         "+-----------------------------------------------------------------------------------------+",
         "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|" % (ver[0], ver[0], ver[1]),
         "|-----------------------------------------+------------------------+----------------------+",
         "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
         "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
         "|                                         |                        |               MIG M. |",
         "|=========================================+========================+======================|"]
    for g in gpus:
        bad = g["idx"] in errs
        o.append("| %3d  %-26s  %3s | %18s Off | %20s |" % (g["idx"], g["name"][:26], "On", "00000000:" + g["bus"][5:].upper(),
                                                          "ERR!" if bad else str(g["ecc_dvol"])))
        if bad:
            o.append("|ERR!  ERR!  ERR!            ERR! / ERR!  | %9dMiB / %6dMiB |    ERR!      Default |" % (g["used"], g["mem"]))
        else:
            o.append("| %-4s  %2dC    P0  %16s |  %9dMiB / %6dMiB | %5d%%      Default |" % (
                "N/A" if g["fan"] is None else "%d%%" % g["fan"], g["temp"], "%dW / %dW" % (g["power"], g["limit"]),
                g["used"], g["mem"], g["util"]))
        o.append("|                                         |                        |             Disabled |")
        o.append("+-----------------------------------------+------------------------+----------------------+")
    o += ["                                                                                         ",
          "+-----------------------------------------------------------------------------------------+",
          "| Processes:                                                                              |",
          "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
          "|        ID   ID                                                               Usage      |",
          "|=========================================================================================|"]
    for g in gpus:
        for pid, mib in g["procs"]:
            o.append("|  %3d   N/A  N/A    %7d      C   python3                                   %6dMiB |" % (g["idx"], pid, mib))
    o.append("+-----------------------------------------------------------------------------------------+")
    return "\n".join(o) + "\n"


def lspci_text(gpus, width_sta=None, gen_sta=None):
    speeds = {1: "2.5GT/s", 2: "5GT/s", 3: "8GT/s", 4: "16GT/s", 5: "32GT/s"}
    o = ["00:00.0 Host bridge [0600]: Intel Corporation Device [8086:09a2] (rev 04)",
         "\tSubsystem: Intel Corporation Device [8086:0000]",
         "\tControl: I/O- Mem- BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx-", ""]
    for g in gpus:
        m = MODELS[g["model"]]
        gs = gen_sta or g["gen"]
        ws = width_sta or g["width"]
        o += ["%s 3D controller [0302]: NVIDIA Corporation Device [10de:%s] (rev a1)" % (g["bus"][5:], m["dev"]),
              "\tSubsystem: NVIDIA Corporation Device [10de:1463]",
              "\tPhysical Slot: %d" % (g["idx"] + 1),
              "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx+",
              "\tLatency: 0",
              "\tInterrupt: pin A routed to IRQ 16",
              "\tNUMA node: %d" % (0 if g["idx"] < 4 else 1),
              "\tRegion 0: Memory at 9a000000 (32-bit, non-prefetchable) [size=16M]",
              "\tCapabilities: [60] Power Management version 3",
              "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)",
              "\tCapabilities: [78] Express (v2) Endpoint, MSI 00",
              "\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us",
              "\t\tLnkCap:\tPort #0, Speed %s, Width x%d, ASPM not supported" % (speeds[m["gen"]], m["width"]),
              "\t\t\tClockPM+ Surprise- LLActRep- BwNot- ASPMOptComp+",
              "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+",
              "\t\tLnkSta:\tSpeed %s%s, Width x%d%s" % (speeds[gs], " (downgraded)" if gs < m["gen"] else " (ok)", ws,
                                                     " (downgraded)" if ws < m["width"] else " (ok)"),
              "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-",
              "\tKernel driver in use: nvidia",
              "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia", "",
              "%s.1 Audio device [0403]: NVIDIA Corporation Device [10de:22ba] (rev a1)" % g["bus"][5:-2],
              "\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)", "\tKernel driver in use: snd_hda_intel", ""]
    return "\n".join(o) + "\n"


def write(d, files, args=None):
    p = os.path.join(HERE, d)
    if os.path.isdir(p):
        for f in os.listdir(p):
            if f != "expected.txt":
                os.remove(os.path.join(p, f))
    os.makedirs(p, exist_ok=True)
    for name, data in files.items():
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(p, name), mode) as f:
            f.write(data)
    if args:
        with open(os.path.join(p, "args"), "w") as f:
            f.write(args + "\n")


DMESG_XID79 = """[    5.123456] nvidia: loading out-of-tree module taints kernel.
[    5.234567] nvidia-nvlink: Nvlink Core is being initialized, major device number 237
[    5.345678] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024
[ 8123.456789] NVRM: GPU at PCI:0000:3b:00: GPU-deadbe01-1111-2222-3333-000000000001
[ 8123.456801] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
[ 8123.456812] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.
[ 8130.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=4711, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address
"""

DMESG_QUIET = """[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0) #101-Ubuntu SMP
[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-5.15.0-91-generic root=/dev/mapper/vg-root ro
[    5.345678] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024
[   12.000000] EXT4-fs (dm-0): mounted filesystem with ordered data mode. Opts: (null)
"""


def main():
    A = lambda i, bus, **kw: gpu("A100", bus, i, **kw)
    H = lambda i, bus, **kw: gpu("H100", bus, i, **kw)
    V = lambda i, bus, **kw: gpu("V100", bus, i, **kw)
    Lx = lambda i, bus, **kw: gpu("L40S", bus, i, **kw)
    busses = ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0", "0000:87:00.0", "0000:90:00.0",
              "0000:b7:00.0", "0000:bd:00.0", "0000:c1:00.0", "0000:c7:00.0"]

    write("0001-a100-r470-healthy", {"nvidia-smi-q.txt": q_text(470, [A(0, busses[0]), A(1, busses[1])])})
    write("0002-h100-r550-sw-thermal", {"smi.txt": q_text(550, [H(0, busses[0], temp=85, reasons={"SW Thermal Slowdown"}, sm=1755),
                                                               H(1, busses[1])])})
    write("0003-h100-r535-hw-thermal", {"q.log": q_text(535, [H(0, busses[0], temp=88, reasons={"HW Slowdown", "HW Thermal Slowdown"}, sm=990)])})
    write("0004-a100-r535-sw-power-cap", {"q.txt": q_text(535, [A(0, busses[0], reasons={"SW Power Cap"}, power=299.5, limit=300.0, sm=1200),
                                                               A(1, busses[1], reasons={"SW Power Cap"}, power=399.0)])})
    write("0005-v100-r470-hw-slowdown", {"q.txt": q_text(470, [V(0, busses[0], reasons={"HW Slowdown"}, sm=765)])})
    write("0006-h100-r570-power-brake", {"q.txt": q_text(570, [H(0, busses[0], reasons={"HW Slowdown", "HW Power Brake Slowdown"}, sm=900),
                                                              H(1, busses[1])])})
    write("0007-l40s-r550-x8-under-load", {"q.txt": q_text(550, [Lx(0, busses[0], width=8, util=97)])})
    write("0008-a100-r535-gen1-idle", {"q.txt": q_text(535, [A(0, busses[0], gen=1, util=0, procs=[], used=4, reasons={"Idle"}, power=60),
                                                            A(1, busses[1], gen=1, util=0, procs=[], used=4, reasons={"Idle"}, power=58)]),
                                       "lspci.txt": lspci_text([A(0, busses[0]), A(1, busses[1])], gen_sta=1)})
    write("0009-a100-r550-remap-pending", {"q.txt": q_text(550, [A(0, busses[0], remap_pending=True), A(1, busses[1])])})
    write("0010-h100-r550-remap-failure", {"q.txt": q_text(550, [H(0, busses[0], remap_fail=True)])})
    write("0011-v100-r470-retired-pending", {"q.txt": q_text(470, [V(0, busses[0], retired_pending=True, dbe=1, sbe=2)])})
    write("0012-a100-r535-ecc-uncorrectable", {"q.txt": q_text(535, [A(0, busses[0], ecc_dvol=3, ecc_dagg=5, ecc_cvol=120)])})
    write("0013-h100-r550-memory-full", {"q.txt": q_text(550, [H(0, busses[0], used=80900, procs=[(4711, 80800)])])})
    write("0014-table-err", {"nvidia-smi.txt": table_text([A(0, busses[0]), A(1, busses[1])], errs=(1,))})
    write("0015-no-devices", {"smi.txt": "No devices were found\n", "lspci.txt": lspci_text([A(0, busses[0]), A(1, busses[1])])})
    write("0016-xml-h100-r535-power-brake", {"q.xml": xml_text([H(0, busses[0], reasons={"HW Slowdown", "HW Power Brake Slowdown"}),
                                                               H(1, busses[1])])})
    write("0017-csv-header-units", {"q.csv":
        "index, name, pci.bus_id, temperature.gpu, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W], clocks_throttle_reasons.active, pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max\n"
        "0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 71, 98 %, 81000 MiB, 81920 MiB, 395.12 W, 400.00 W, 0x0000000000000004, 4, 4, 16, 16\n"
        "1, NVIDIA A100-SXM4-80GB, 00000000:0F:00.0, 34, 0 %, 4 MiB, 81920 MiB, 61.30 W, 400.00 W, 0x0000000000000001, 1, 4, 16, 16\n"
        "2, NVIDIA A100-SXM4-80GB, 00000000:47:00.0, [N/A], [N/A], 4 MiB, 81920 MiB, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]\n"})
    write("0018-csv-noheader-with-command", {"paste.txt":
        "$ nvidia-smi --query-gpu=index,pci.bus_id,utilization.gpu,temperature.gpu,clocks_event_reasons.active,pcie.link.width.current,pcie.link.width.max,pcie.link.gen.current,pcie.link.gen.max --format=csv,noheader,nounits\n"
        "0, 00000000:07:00.0, 99, 66, 0x0000000000000000, 8, 16, 4, 4\n"
        "1, 00000000:0F:00.0, 99, 65, 0x0000000000000000, 16, 16, 4, 4\n"})
    write("0019-paste-prompts", {"ticket.txt":
        "Hi, training hangs on node 7 since this morning. Output below.\n\n"
        "root@gpu-node7:~# nvidia-smi -q\n" + q_text(550, [A(0, busses[0]), gpu("A100", "0000:3b:00.0", 1, procs=[])]).replace(
            "    Encoder Stats", "[...]\n    Encoder Stats", 1) +
        "\n# and the kernel log:\n"
        "root@gpu-node7:~# dmesg | grep -i -e nvrm -e xid\n" + DMESG_XID79 +
        "...\n"
        "[root@gpu-node7 ~]# lspci -vv -d 10de:\n" + lspci_text([A(0, busses[0]), gpu("A100", "0000:3b:00.0", 1)])})
    write("0020-gpu-lost-table", {"nvidia-smi.out": "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n"
                                  "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU\n"})
    write("0021-driver-not-loaded", {"smi.txt": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n\n",
                                     "lspci.txt": lspci_text([A(0, busses[0])]).replace("\tKernel driver in use: nvidia\n", "")})
    ten = [H(i, busses[i]) for i in range(10)]
    ten[7]["temp"] = 86
    ten[7]["reasons"] = {"SW Thermal Slowdown"}
    text = q_text(550, ten)
    lines = text.split("\n")
    start = [i for i, l in enumerate(lines) if l.startswith("GPU 00000000:B7")][0]
    lines[start] = "GPU 0000\x7f\x01:B7:00.0 \xa0garbled"
    for i in range(start + 60, start + 70):
        lines[i] = "    Utilization@@@@: 9\xe9\xe9 %%"
    write("0022-ten-gpus-one-garbled", {"q.txt": "\n".join(lines).encode("latin-1")})
    write("0023-utf16-bom", {"q-utf16.txt": b"\xff\xfe" + q_text(535, [A(0, busses[0], remap_pending=True)]).replace("\n", "\r\n").encode("utf-16-le")})
    tr = q_text(550, [H(0, busses[0]), H(1, busses[1], reasons={"HW Slowdown", "HW Power Brake Slowdown"}), H(2, busses[2])])
    write("0024-truncated", {"q.txt": tr[:tr.index("    Temperature", tr.index("GPU 00000000:47"))]})
    write("0025-unknown-format", {"notes.txt": "The job was slow yesterday.\nNo idea why.\n"})
    write("0026-three-files-one-host", {"dmesg.txt": DMESG_XID79, "nvidia-smi-q.txt": q_text(535, [A(0, busses[0]), gpu("A100", "0000:3b:00.0", 1, procs=[])]),
                                        "lspci-vv.txt": lspci_text([A(0, busses[0]), gpu("A100", "0000:3b:00.0", 1)])})
    bug = ("____________________________________________\n\n"
           "Start of NVIDIA bug report log file.  Please include this file, along\n"
           "with a detailed description of your problem, when reporting a graphics\n"
           "driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)\n"
           "or by sending email to 'linux-bugs@nvidia.com'.\n\n"
           "nvidia-bug-report.sh Version: 34176979\n\n"
           "Date: Mon Jun  3 10:20:01 UTC 2024\n"
           "uname: Linux gpu-node7 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux\n"
           "command line flags: \n\n"
           "____________________________________________\n\n"
           "*** /etc/issue\n*** ls: -rw-r--r-- 1 root root 26 2023-10-03 10:03:35.000000000 +0000 /etc/issue\nUbuntu 22.04.3 LTS \\n \\l\n\n"
           "____________________________________________\n\n"
           "*** /proc/driver/nvidia/version\n*** ls: -r--r--r-- 1 root root 0 2024-06-03 10:20:01.551236001 +0000 /proc/driver/nvidia/version\n"
           "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
           "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n\n"
           "____________________________________________\n\n"
           "/usr/bin/nvidia-smi --query\n\n" + q_text(550, [A(0, busses[0], ecc_dvol=2), A(1, busses[1])]) +
           "\n____________________________________________\n\n"
           "/usr/bin/nvidia-smi --query --unit\n\n\n==============NVSMI LOG==============\n\n"
           "Timestamp                                 : Mon Jun  3 10:20:05 2024\n"
           "Driver Version                            : 550.54.15\nCUDA Version                              : 12.4\n\n"
           "Attached Units                            : 0\n\n"
           "____________________________________________\n\n"
           "/sbin/lspci -nnDvvvxxxx\n\n" + lspci_text([A(0, busses[0]), A(1, busses[1])]).replace("\n07:", "\n0000:07:").replace("\n0f:", "\n0000:0f:") +
           "\n____________________________________________\n\n"
           "*** /var/log/kern.log\n*** ls: -rw-r----- 1 syslog adm 123 2024-06-03 10:19:00.000000000 +0000 /var/log/kern.log\n"
           "Jun  3 09:12:01 gpu-node7 kernel: [ 8123.456801] NVRM: Xid (PCI:0000:07:00): 48, pid=4711, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n\n"
           "____________________________________________\n\n"
           "dmesg:\n\n" + DMESG_QUIET +
           "[ 8123.456801] NVRM: Xid (PCI:0000:07:00): 48, pid=4711, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n"
           "[ 8123.456900] NVRM: Xid (PCI:0000:07:00): 63, pid=4711, name=python3, Row Remapper: New row marked for remapping, reset gpu to activate.\n\n"
           "____________________________________________\n\nEnd of NVIDIA bug report log file.\n")
    write("0027-bug-report-gz", {"nvidia-bug-report.log.gz": gzip.compress(bug.encode(), mtime=0)})
    write("0028-stdin-paste", {"stdin": "$ nvidia-smi\n" + table_text([H(0, busses[0], used=81000, temp=45), H(1, busses[1])]) +
                                "\n$ sudo dmesg -T | tail\n" + DMESG_QUIET}, args="--from -")


if __name__ == "__main__":
    main()
