import pytest

import handyd

GESTURE = ('{"type":"gesture","centroid":{"x":0.48125,"y":0.49437},"centroidMm":{"x":96.225,"y":59.3},'
           '"clearSide":"right","device":"replay:demo","fingers":2,"gesture":"pinch","hand":"left",'
           '"handConfidence":0.959,"id":6,"occlusion":{"polygon":[{"x":0.031,"y":1},{"x":0.078,"y":0.81},'
           '{"x":0.34,"y":0.275}],"polygonMm":[{"x":6.2,"y":120},{"x":15.7,"y":97.1},{"x":67.9,"y":33}]},'
           '"phase":"began","rightHandProbability":0.041,"scale":1,"spanMm":61.592,"time":3.21,"touches":[0,1],'
           '"futureField":{"a":1}}')


def test_every_message_of_protocol_md_decodes_with_unknown_fields_kept():
    g = handyd.decode_message(GESTURE)
    assert isinstance(g, handyd.Gesture)
    assert (g.gesture, g.phase, g.id, g.hand, g.clear_side) == ("pinch", "began", 6, "left", "right")
    assert g.right_hand_probability == 0.041 and g.centroid == handyd.Point(0.48125, 0.49437)
    assert g.occlusion is not None and g.occlusion.polygon_mm[2] == handyd.Point(67.9, 33)
    assert g.extra == {"futureField": {"a": 1}}
    hello = handyd.decode_message('{"type":"hello","devices":[{"heightMm":120,"id":"replay:demo","name":"n",'
                                  '"problems":["p"],"slots":10,"widthMm":200,"new":true}],"protocol":1,"version":"0.2.0"}')
    assert isinstance(hello, handyd.Hello) and hello.devices[0].width_mm == 200 and hello.devices[0].extra == {"new": True}
    dev = handyd.decode_message('{"type":"device","device":{"id":"x","name":"n","readable":false,"reason":"r",'
                                '"fix":"f"},"event":"added"}')
    assert isinstance(dev, handyd.DeviceEvent) and dev.event == "added" and not dev.device.is_readable
    t = handyd.decode_message('{"type":"touches","device":"d","time":3,"touches":[{"id":0,"majorMm":12,"phase":"began",'
                              '"tool":"finger","vxMm":0,"vyMm":0,"x":0.5,"xMm":100,"y":0.7,"yMm":85}]}')
    assert isinstance(t, handyd.Touches) and t.touches[0].major_mm == 12 and t.touches[0].y_mm == 85
    f = handyd.decode_message('{"type":"frame","device":"d","time":1.67,"gestures":[{"gesture":"pinch","phase":"changed",'
                              '"id":1,"centroid":{"x":0.5,"y":0.5},"scale":1.02}],"touches":[{"id":0,"phase":"moved",'
                              '"x":0.4,"y":0.6}]}')
    assert isinstance(f, handyd.Frame) and f.gestures[0].device == "d" and f.gestures[0].time == 1.67
    assert f.touches[0].x_mm is None
    s = handyd.decode_message('{"type":"status","clients":2,"devices":1,"drops":0,"events":912,"frames":1204,"uptime":42.125}')
    assert isinstance(s, handyd.Status) and s.events == 912
    e = handyd.decode_message('{"type":"error","code":"invalid-json","message":"m"}')
    assert isinstance(e, handyd.Error) and e.code == "invalid-json"
    d = handyd.decode_message('{"type":"shutdown","reason":"daemon stopping"}')
    assert isinstance(d, handyd.Shutdown) and d.reason == "daemon stopping"


def test_unknown_types_are_skipped_and_non_messages_rejected():
    assert handyd.decode_message('{"type":"hologram","x":1}') is None
    for text in ["", "not json", "[1]", "null", "42", '{"kind":"hello"}', '{"type":7}',
                 '{"type":"gesture","gesture":"pinch"}', '{"type":"gesture","gesture":"pinch","phase":"began","id":1,"centroid":3}']:
        with pytest.raises(handyd.ProtocolError):
            handyd.decode_message(text)


def test_subscribe_carries_only_what_is_set():
    assert handyd.encode_subscribe(handyd.Subscription(gestures=["pinch"], form="compact")) == \
        b'{"type":"subscribe","gestures":["pinch"],"form":"compact"}\n'
    assert handyd.encode_subscribe(handyd.Subscription(touches=True)) == b'{"type":"subscribe","touches":true}\n'


def test_hovering_contacts_decode_apart_from_touches():
    t = handyd.decode_message('{"type":"touches","device":"d","time":0.02,"touches":[{"id":0,"phase":"began",'
                              '"tool":"finger","x":0.26,"xMm":26,"y":0.4,"yMm":24}],"hovers":[{"distance":1,'
                              '"distanceNormalized":1,"id":0,"phase":"landed","touch":0,"x":0.26,"xMm":26,"y":0.4,'
                              '"yMm":24},{"distance":1,"distanceNormalized":1,"id":1,"phase":"hovering","x":0.75,'
                              '"xMm":75,"y":0.6,"yMm":36}]}')
    assert isinstance(t, handyd.Touches) and [x.id for x in t.touches] == [0]
    assert [(h.id, h.phase, h.touch) for h in t.hovers] == [(0, "landed", 0), (1, "hovering", None)]
    assert t.hovers[1].distance_normalized == 1 and t.hovers[1].x_mm == 75 and t.hovers[1].extra == {}
    assert all(isinstance(h, handyd.Hover) for h in t.hovers)
    plain = handyd.decode_message('{"type":"touches","device":"d","time":3,"touches":[]}')
    assert isinstance(plain, handyd.Touches) and plain.hovers == []
    f = handyd.decode_message('{"type":"frame","device":"d","time":0.01,"hovers":[{"distance":3,'
                              '"distanceNormalized":0.0118,"id":0,"phase":"began","x":0.2,"y":0.3}]}')
    assert isinstance(f, handyd.Frame) and f.touches == [] and f.hovers[0].distance == 3
    assert f.hovers[0].x_mm is None
    with pytest.raises(handyd.ProtocolError):
        handyd.decode_message('{"type":"touches","device":"d","time":0,"touches":[],"hovers":[{"id":0}]}')
    g = handyd.decode_message(GESTURE.replace('"polygonMm":', '"source":"hover","polygonMm":'))
    assert isinstance(g, handyd.Gesture) and g.occlusion is not None and g.occlusion.source == "hover"
    plain = handyd.decode_message(GESTURE)
    assert isinstance(plain, handyd.Gesture) and plain.occlusion is not None and plain.occlusion.source is None
    assert handyd.encode_subscribe(handyd.Subscription(touches=True, hover=True)) == \
        b'{"type":"subscribe","touches":true,"hover":true}\n'


def test_backoff_doubles_up_to_the_maximum():
    b = handyd.Backoff(0.1, 1.0)
    assert [round(b.delay(n), 3) for n in (0, 1, 2, 3, 4, 5, 9)] == [0, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
