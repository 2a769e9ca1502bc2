"""Edited TensorIterator, Loop and If nets for tests/ir/test_bodies.py: three bases saved by OpenVINO's
save_model (a TensorIterator, one with a back edge, a Loop, an If; each body pools), then 78 edits of their
port maps (their numbers spelled otherwise too), back edges and body Results. Written in the current folder:
base_*.xml and ir/<name>.xml."""
import copy
import os
import shutil
import xml.etree.ElementTree as ET

import numpy as np


def bases():
    """Write base_ti.xml, base_tibe.xml, base_loop.xml and base_if.xml (with their .bin)."""
    import openvino as ov
    import openvino.opset11 as ops
    # kernel 2, stride 1, pads_end 1 -> spatial shape preserved, values change (MaxPool != AvgPool)
    def mp(x): return ops.max_pool(x, [1,1],[1,1],[0,0],[1,1],[2,2]).output(0)
    def ap(x): return ops.avg_pool(x, [1,1],[0,0],[1,1],[2,2],True)

    # (a) TensorIterator: slice axis 1 of [1,4,8,8], body Parameter->MaxPool->Result, concat on axis 1
    X = ops.parameter([1,4,8,8], np.float32, name="X")
    bp = ops.parameter([1,1,8,8], np.float32, name="body_in")
    br = ops.result(mp(bp), name="body_out")
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([br], [bp], "ti_body"))
    ti.set_sliced_input(bp, X.output(0), 0, 1, 1, -1, 1)
    out = ti.get_concatenated_slices(br.output(0), 0, 1, 1, -1, 1)
    ov.save_model(ov.Model([ops.result(out, name="Y")], [X], "ti"), "base_ti.xml", compress_to_fp16=False)

    # (a') TensorIterator with a back edge: h_{t+1} = MaxPool(slice_t + h_t), last h out
    X = ops.parameter([1,4,8,8], np.float32, name="X")
    H = ops.parameter([1,1,8,8], np.float32, name="H")
    s = ops.parameter([1,1,8,8], np.float32, name="slice_in")
    h = ops.parameter([1,1,8,8], np.float32, name="h_in")
    hr = ops.result(mp(ops.add(s, h)), name="h_out")
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([hr], [s, h], "ti_be_body"))
    ti.set_sliced_input(s, X.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(h, H.output(0), hr.output(0))
    out = ti.get_iter_value(hr.output(0), -1)
    ov.save_model(ov.Model([ops.result(out, name="Y")], [X, H], "ti_be"), "base_tibe.xml", compress_to_fp16=False)

    # (b) Loop: trip count Const 2, exec cond Const true, body Parameter->MaxPool->Result (+ back edge),
    #     body execution condition Const true -> Result
    X = ops.parameter([1,4,8,8], np.float32, name="X")
    trip = ops.constant(np.array(2, dtype=np.int64))
    cond = ops.constant(np.array(True))
    bp = ops.parameter([1,4,8,8], np.float32, name="body_in")
    br = ops.result(mp(bp), name="body_out")
    bc = ops.result(ops.constant(np.array(True)), name="body_cond")
    lp = ops.loop(trip, cond)
    lp.set_function(ov.Model([br, bc], [bp], "loop_body"))
    lp.set_special_body_ports([-1, 1])
    lp.set_merged_input(bp, X.output(0), br.output(0))
    o1 = lp.get_iter_value(br.output(0), -1)
    ov.save_model(ov.Model([ops.result(o1, name="Y")], [X], "loop"), "base_loop.xml", compress_to_fp16=False)

    # (c) If: bool Parameter condition, then Parameter->MaxPool->Result, else Parameter->AvgPool->Result
    X = ops.parameter([1,4,8,8], np.float32, name="X")
    C = ops.parameter([], ov.Type.boolean, name="C")
    tp = ops.parameter([1,4,8,8], np.float32, name="then_in")
    tr = ops.result(mp(tp), name="then_out")
    ep = ops.parameter([1,4,8,8], np.float32, name="else_in")
    er = ops.result(ap(ep), name="else_out")
    iff = ops.if_op(C.output(0))
    iff.set_then_body(ov.Model([tr],[tp],"then"))
    iff.set_else_body(ov.Model([er],[ep],"else"))
    iff.set_input(X.output(0), tp, ep)
    o = iff.set_output(tr, er)
    ov.save_model(ov.Model([ops.result(o, name="Y")], [X, C], "if"), "base_if.xml", compress_to_fp16=False)


def variants() -> dict:
    """Write ir/<name>.xml for each edit; {name: (base, what was edited)}."""
    os.makedirs("ir", exist_ok=True)
    V = {}
    def load(base):
        return ET.parse(f"base_{base}.xml")

    def sg(t, typ):  # outer subgraph layer
        return t.getroot().find(f"layers/layer[@type='{typ}']")

    def lay(body, lid):
        return body.find(f"layers/layer[@id='{lid}']")

    def rm_layer(body, lid, keep_edges=False):
        body.find("layers").remove(lay(body, lid))
        if not keep_edges:
            es = body.find("edges")
            for e in list(es):
                if e.get("from-layer") == str(lid) or e.get("to-layer") == str(lid):
                    es.remove(e)

    def add_result(body, lid, from_layer, from_port, src_port_elem, name):
        l = ET.SubElement(body.find("layers"), "layer", {"id": str(lid), "name": name, "type": "Result", "version": "opset1"})
        inp = ET.SubElement(l, "input")
        p = copy.deepcopy(src_port_elem); p.attrib = {"id": "0", "precision": src_port_elem.get("precision")}
        inp.append(p)
        ET.SubElement(body.find("edges"), "edge", {"from-layer": str(from_layer), "from-port": str(from_port),
                                                   "to-layer": str(lid), "to-port": "0"})

    def pm_out(layer, pm="port_map", purpose=None):
        outs = layer.find(pm).findall("output")
        return [o for o in outs if o.get("purpose") == purpose]

    def save(name, base, t, desc):
        t.write(f"ir/{name}.xml", encoding="unicode", xml_declaration=True)
        shutil.copy(f"base_{base}.bin", f"ir/{name}.bin")
        V[name] = (base, desc)

    # ---------- base copies
    for b in ["ti", "tibe", "loop", "if"]:
        save(f"{b}_0_base", b, load(b), "unmodified ov.save_model output")

    # ---------- TensorIterator (body: 0 Param, 1 MaxPool, 2 Result; output port_map -> 2)
    t = load("ti"); L = sg(t, "TensorIterator"); rm_layer(L.find("body"), 2)
    save("ti_1_rm_result", "ti", t, "remove body Result 2 + its edge (port_map output still names 2)")
    t = load("ti"); L = sg(t, "TensorIterator"); rm_layer(L.find("body"), 2, keep_edges=True)
    save("ti_1b_rm_result_keep_edge", "ti", t, "remove body Result 2, keep dangling body edge 1->2")
    t = load("ti"); L = sg(t, "TensorIterator"); pm_out(L)[0].set("internal_layer_id", "1")
    save("ti_2_out_to_maxpool", "ti", t, "output port_map internal_layer_id -> MaxPool (1)")
    t = load("ti"); L = sg(t, "TensorIterator"); pm_out(L)[0].set("internal_layer_id", "0")
    save("ti_2b_out_to_param", "ti", t, "output port_map internal_layer_id -> body Parameter (0)")
    t = load("ti"); L = sg(t, "TensorIterator"); pm_out(L)[0].set("internal_layer_id", "99")
    save("ti_3_out_to_missing", "ti", t, "output port_map internal_layer_id -> 99 (no such layer)")
    t = load("ti"); L = sg(t, "TensorIterator"); L.find("port_map").find("input").set("internal_layer_id", "2")
    save("ti_3b_in_to_result", "ti", t, "input port_map internal_layer_id -> body Result (2)")
    t = load("ti"); L = sg(t, "TensorIterator"); L.find("port_map").find("input").set("internal_layer_id", "99")
    save("ti_3c_in_to_missing", "ti", t, "input port_map internal_layer_id -> 99")
    t = load("ti"); L = sg(t, "TensorIterator"); L.find("port_map").remove(pm_out(L)[0])
    save("ti_3d_no_out_entry", "ti", t, "delete the <output> port_map entry (TI <output> port 1 still in XML and used)")
    t = load("ti"); L = sg(t, "TensorIterator"); b = L.find("body")
    add_result(b, 3, 1, 1, lay(b, 2).find("input/port"), "extra_res")
    save("ti_6_extra_result", "ti", t, "extra body Result 3 (from MaxPool:1), no port_map entry")
    t = load("ti"); L = sg(t, "TensorIterator"); b = L.find("body")
    add_result(b, 3, 0, 0, lay(b, 0).find("output/port"), "extra_res")
    b.find("layers").insert(2, b.find("layers")[-1])  # put it before the named Result in XML order
    save("ti_6b_extra_result_first", "ti", t, "extra body Result 3 (from Parameter) placed before Result 2 in XML, no port_map entry")

    t = load("ti"); b = sg(t, "TensorIterator").find("body"); es = b.find("edges")
    for e in list(es):
        if e.get("to-layer") == "2": es.remove(e)
    save("ti_1c_result_no_input_edge", "ti", t, "keep body Result 2 but delete the edge feeding it")
    t = load("ti"); b = sg(t, "TensorIterator").find("body")
    add_result(b, 3, 1, 1, lay(b, 2).find("input/port"), "extra_res"); es = b.find("edges"); es.remove(es[-1])
    save("ti_6c_extra_result_unconnected", "ti", t, "extra body Result 3 with no incoming edge, no port_map entry")

    # ---------- TI with back edge (body: 0 slice Param, 1 h Param, 2 Add, 3 MaxPool, 4 Result; back edge 4->1)
    def be(t): return sg(t, "TensorIterator").find("back_edges/edge")
    for nm, attr, val, d in [("tibe_7a_from_nonresult", "from-layer", "3", "back_edge from-layer -> MaxPool (3)"),
                             ("tibe_7b_from_missing", "from-layer", "99", "back_edge from-layer -> 99"),
                             ("tibe_7c_to_nonparam", "to-layer", "2", "back_edge to-layer -> Add (2)"),
                             ("tibe_7d_to_missing", "to-layer", "99", "back_edge to-layer -> 99"),
                             ("tibe_7e_from_param", "from-layer", "0", "back_edge from-layer -> Parameter (0)"),
                             ("tibe_7f_to_sliced_param", "to-layer", "0", "back_edge to-layer -> the sliced Parameter (0)")]:
        t = load("tibe"); be(t).set(attr, val); save(nm, "tibe", t, d)
    t = load("tibe"); L = sg(t, "TensorIterator"); L.remove(L.find("back_edges"))
    save("tibe_7g_no_back_edges", "tibe", t, "delete <back_edges> (merged input loses its back edge)")
    t = load("tibe"); L = sg(t, "TensorIterator"); b = L.find("body")
    add_result(b, 5, 2, 2, lay(b, 4).find("input/port"), "extra_res"); be(t).set("from-layer", "5")
    save("tibe_6_backedge_only_result", "tibe", t, "back_edge from a 2nd Result 5 (Add) that no <output> names")

    # ---------- Loop (body: 0 Param, 1 Const, 2 MaxPool, 3 Result body_out, 4 Result body_cond; back edge 3->0)
    def LP(t): return sg(t, "Loop")
    t = load("loop"); rm_layer(LP(t).find("body"), 3)
    save("loop_1_rm_out_result", "loop", t, "remove body Result 3 (named by <output> and back_edge)")
    t = load("loop"); rm_layer(LP(t).find("body"), 3); LP(t).remove(LP(t).find("back_edges"))
    save("loop_1b_rm_out_result_and_be", "loop", t, "remove body Result 3 and <back_edges> (only <output> still names 3)")
    t = load("loop"); pm_out(LP(t))[0].set("internal_layer_id", "2")
    save("loop_2_out_to_maxpool", "loop", t, "output port_map -> MaxPool (2)")
    t = load("loop"); pm_out(LP(t))[0].set("internal_layer_id", "99")
    save("loop_3_out_to_missing", "loop", t, "output port_map -> 99")
    t = load("loop"); pm_out(LP(t))[0].set("internal_layer_id", "4")
    save("loop_3b_out_to_cond_result", "loop", t, "output port_map -> the bool condition Result (4)")
    t = load("loop"); rm_layer(LP(t).find("body"), 4)
    save("loop_4a_rm_cond_result", "loop", t, "remove body cond Result 4 (execution_condition entry still names 4)")
    t = load("loop"); LP(t).find("port_map").remove(pm_out(LP(t), purpose="execution_condition")[0])
    save("loop_4b_rm_cond_entry", "loop", t, "remove purpose=execution_condition entry; cond Result 4 stays unused")
    t = load("loop"); LP(t).find("port_map").remove(pm_out(LP(t), purpose="execution_condition")[0]); rm_layer(LP(t).find("body"), 4)
    save("loop_4c_rm_cond_entry_and_result", "loop", t, "remove execution_condition entry and Result 4 (+Const left dangling)")
    t = load("loop"); pm_out(LP(t), purpose="execution_condition")[0].set("internal_layer_id", "1")
    save("loop_4d_cond_to_const", "loop", t, "execution_condition -> the body Const (1), not a Result")
    t = load("loop"); pm_out(LP(t), purpose="execution_condition")[0].set("internal_layer_id", "99")
    save("loop_4e_cond_to_missing", "loop", t, "execution_condition -> 99")
    t = load("loop"); pm_out(LP(t), purpose="execution_condition")[0].set("internal_layer_id", "3")
    save("loop_4f_cond_to_f32_result", "loop", t, "execution_condition -> the f32 [1,4,8,8] Result 3")
    t = load("loop"); ET.SubElement(LP(t), "data", {"special_body_ports": "-1,1"})
    save("loop_4g_data_special_body_ports", "loop", t, "add <data special_body_ports='-1,1'/> to the Loop layer")
    t = load("loop"); pm_out(LP(t), purpose="execution_condition")[0].set("purpose", "exec_cond")
    save("loop_4h_purpose_misspelt", "loop", t, "purpose='exec_cond' (unknown purpose) on the cond entry")
    t = load("loop"); b = LP(t).find("body")
    add_result(b, 5, 2, 1, lay(b, 3).find("input/port"), "extra_res")
    save("loop_6_extra_result", "loop", t, "extra body Result 5 (from MaxPool), no port_map entry")
    for nm, attr, val, d in [("loop_7a_be_from_nonresult", "from-layer", "2", "back_edge from-layer -> MaxPool (2)"),
                             ("loop_7b_be_from_missing", "from-layer", "99", "back_edge from-layer -> 99"),
                             ("loop_7c_be_to_nonparam", "to-layer", "2", "back_edge to-layer -> MaxPool (2)"),
                             ("loop_7d_be_to_missing", "to-layer", "99", "back_edge to-layer -> 99"),
                             ("loop_7e_be_from_cond_result", "from-layer", "4", "back_edge from-layer -> bool cond Result (4)")]:
        t = load("loop"); LP(t).find("back_edges/edge").set(attr, val); save(nm, "loop", t, d)
    t = load("loop"); LP(t).remove(LP(t).find("back_edges"))
    save("loop_7g_no_back_edges", "loop", t, "delete <back_edges>")

    # ---------- If (then: 0 Param, 1 MaxPool, 2 Result; else: 0 Param, 1 AvgPool, 2 Result; both output ext 2 -> 2)
    def IF(t): return sg(t, "If")
    t = load("if"); rm_layer(IF(t).find("then_body"), 2)
    save("if_1_rm_then_result", "if", t, "remove then_body Result 2 (then_port_map still names 2)")
    t = load("if"); rm_layer(IF(t).find("then_body"), 2); IF(t).find("then_port_map").remove(pm_out(IF(t), "then_port_map")[0])
    save("if_5a_then_no_outputs", "if", t, "remove then Result 2 and its then_port_map entry (then 0 outputs, else 1)")
    t = load("if"); pm_out(IF(t), "then_port_map")[0].set("internal_layer_id", "1")
    save("if_2_then_out_to_maxpool", "if", t, "then_port_map output -> MaxPool (1)")
    t = load("if"); pm_out(IF(t), "then_port_map")[0].set("internal_layer_id", "99")
    save("if_3_then_out_to_missing", "if", t, "then_port_map output -> 99")
    t = load("if"); pm_out(IF(t), "else_port_map")[0].set("internal_layer_id", "99")
    save("if_3b_else_out_to_missing", "if", t, "else_port_map output -> 99")
    t = load("if"); b = IF(t).find("then_body")
    add_result(b, 3, 0, 0, lay(b, 0).find("output/port"), "extra_res")
    save("if_6_then_extra_result", "if", t, "extra then Result 3 (from Parameter), no port_map entry")
    t = load("if"); b = IF(t).find("then_body")
    add_result(b, 3, 0, 0, lay(b, 0).find("output/port"), "extra_res")
    ET.SubElement(IF(t).find("then_port_map"), "output", {"external_port_id": "3", "internal_layer_id": "3"})
    op = IF(t).find("output"); p = copy.deepcopy(op[0]); p.set("id", "3"); p.attrib.pop("names", None); op.append(p)
    save("if_5b_then_extra_mapped", "if", t, "then: extra Result 3 mapped to ext 3, If <output> gets port 3; else has no ext 3")
    t = load("if")
    ET.SubElement(IF(t).find("then_port_map"), "output", {"external_port_id": "3", "internal_layer_id": "2"})
    op = IF(t).find("output"); p = copy.deepcopy(op[0]); p.set("id", "3"); p.attrib.pop("names", None); op.append(p)
    save("if_5c_then_two_entries_one_result", "if", t, "then_port_map has ext 2 and ext 3 -> same Result 2; else only ext 2; If <output> ports 2,3")
    t = load("if")
    for pm in ["then_port_map", "else_port_map"]:
        ET.SubElement(IF(t).find(pm), "output", {"external_port_id": "3", "internal_layer_id": "2"})
    op = IF(t).find("output"); p = copy.deepcopy(op[0]); p.set("id", "3"); p.attrib.pop("names", None); op.append(p)
    save("if_5d_both_two_entries_one_result", "if", t, "both port_maps ext 2,3 -> their one Result; If <output> ports 2,3")
    t = load("if"); op = IF(t).find("output"); p = copy.deepcopy(op[0]); p.set("id", "3"); p.attrib.pop("names", None); op.append(p)
    save("if_5e_extra_xml_out_port", "if", t, "If <output> gains port 3 with no port_map entry in either branch")
    t = load("if"); pm_out(IF(t), "else_port_map")[0].set("external_port_id", "3")
    save("if_5f_else_ext_id_3", "if", t, "else_port_map output external_port_id 3 (then says 2; If has port 2 only)")
    t = load("if"); rm_layer(IF(t).find("then_body"), 2); rm_layer(IF(t).find("else_body"), 2)
    save("if_1c_rm_both_results", "if", t, "remove Result 2 in both branches (port_maps still name 2)")

    # ---------- numbers spelled otherwise (irpool/ir/read/ids.py): read_model reads them whole, with std::stoll
    for i, (attr, val) in enumerate([("axis", "1 "), ("axis", " 1"), ("axis", "-1"), ("start", "0 "), ("start", "+0"),
                                     ("end", "-1 "), ("end", " -1"), ("stride", "1\u00a0"), ("part_size", "01"),
                                     ("external_port_id", "0 "), ("external_port_id", "00"),
                                     ("external_port_id", "-1"), ("internal_layer_id", "0 "),
                                     ("internal_layer_id", "+0")]):
        t = load("ti"); sg(t, "TensorIterator").find("port_map").find("input").set(attr, val)
        save(f"ti_8_{i}_{attr}", "ti", t, f"input port_map {attr}={val!r}")
    for i, (attr, val) in enumerate([("from-layer", "4 "), ("from-layer", "04"), ("to-layer", " 1"),
                                     ("to-layer", "\u0661")]):
        t = load("tibe"); be(t).set(attr, val)
        save(f"tibe_8_{i}_{attr}", "tibe", t, f"back_edge {attr}={val!r}")
    t = load("tibe"); del be(t).attrib["to-layer"]
    save("tibe_9_no_to_layer", "tibe", t, "back_edge without to-layer")
    t = load("if"); IF(t).find("then_port_map").find("input").set("external_port_id", "-1")
    save("if_9_then_input_ext_minus1", "if", t, "then_port_map <input external_port_id=\"-1\">")
    t = load("ti"); pm_out(sg(t, "TensorIterator"))[0].set("axis", "-1")
    save("ti_9_output_axis_minus1", "ti", t, "output port_map axis=\"-1\" (signed, unlike an input's)")
    t = load("ti"); lay(sg(t, "TensorIterator").find("body"), 0).set("type", "PARAMETER")
    save("ti_9_body_parameter_in_capitals", "ti", t, "body Parameter written type=\"PARAMETER\"")

    return V
