package io.acceld.proto;

import static io.acceld.proto.Wire.field;
import static io.acceld.proto.Wire.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Checks the golden-bytes helper itself against literal encodings from the protobuf spec. */
class WireTest {

  @Test
  void varintFieldMatchesTheSpecExample() {
    // Field 1 = 150: the encoding guide's first example.
    assertThat(field(1, Wire.varint(150))).isEqualTo(hex("08 96 01"));
  }

  @Test
  void stringFieldIsTagLengthThenUtf8() {
    assertThat(field(2, Wire.string("testing"))).isEqualTo(hex("12 07 74 65 73 74 69 6e 67"));
    assertThat(field(1, Wire.string(""))).isEqualTo(hex("0a 00"));
  }

  @Test
  void negativeVarintTakesTenBytes() {
    assertThat(field(1, Wire.varint(-1))).isEqualTo(hex("08 ff ff ff ff ff ff ff ff ff 01"));
  }

  @Test
  void fieldNumbersAbove15NeedTwoTagBytes() {
    // (16 << 3) | 2 = 130 = 0x82 0x01
    assertThat(field(16, Wire.bytes(new byte[] {7}))).isEqualTo(hex("82 01 01 07"));
  }

  @Test
  void doubleIsWireType1LittleEndian() {
    assertThat(field(1, Wire.dbl(1.0))).isEqualTo(hex("09 00 00 00 00 00 00 f0 3f"));
  }

  @Test
  void nestedAndPackedAreLengthDelimited() {
    assertThat(field(3, Wire.message(field(1, Wire.varint(150))))).isEqualTo(hex("1a 03 08 96 01"));
    assertThat(field(4, Wire.packed(3, 270, 86942))).isEqualTo(hex("22 06 03 8e 02 9e a7 05"));
    assertThat(field(5, Wire.bool(true))).isEqualTo(hex("28 01"));
  }

  @Test
  void hexRejectsOddDigitCount() {
    assertThatThrownBy(() -> hex("0a 0")).isInstanceOf(IllegalArgumentException.class);
  }
}
