package dev.zklock.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.curator.utils.PathUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link KeyEncoder}.
 */
class KeyEncoderTests {

	@Test
	void keepsPlainKeysReadable() {
		assertThat(KeyEncoder.encode("order-42")).isEqualTo("order-42");
		assertThat(KeyEncoder.encode("Order_42.v2:eu@x=1+2,3~")).isEqualTo("Order_42.v2:eu@x=1+2,3~");
	}

	@Test
	void encodesSlashesDotsAndPercent() {
		assertThat(KeyEncoder.encode("a/b")).isEqualTo("a%2Fb");
		assertThat(KeyEncoder.encode("/zookeeper/quota")).isEqualTo("%2Fzookeeper%2Fquota");
		assertThat(KeyEncoder.encode("../..")).isEqualTo("..%2F..");
		assertThat(KeyEncoder.encode(".")).isEqualTo("%2E");
		assertThat(KeyEncoder.encode("..")).isEqualTo("%2E%2E");
		assertThat(KeyEncoder.encode("...")).isEqualTo("...");
		assertThat(KeyEncoder.encode("100%")).isEqualTo("100%25");
		assertThat(KeyEncoder.encode("#nokey")).isEqualTo("%23nokey");
	}

	@Test
	void encodesEmptyKeyToReservedSegment() {
		assertThat(KeyEncoder.encode("")).isEqualTo(KeyEncoder.EMPTY_KEY);
	}

	@Test
	void encodesUnicodeAsUtf8() {
		assertThat(KeyEncoder.encode("é")).isEqualTo("%C3%A9");
		assertThat(KeyEncoder.encode("日本")).isEqualTo("%E6%97%A5%E6%9C%AC");
		assertThat(KeyEncoder.encode("😀")).isEqualTo("%F0%9F%98%80");
	}

	@Test
	void encodesControlCharacters() {
		assertThat(KeyEncoder.encode("a\u0000b")).isEqualTo("a%00b");
		assertThat(KeyEncoder.encode("\t\n\u007f\u0085")).isEqualTo("%09%0A%7F%C2%85");
	}

	@Test
	void keepsLoneSurrogatesDistinctFromQuestionMark() {
		assertThat(KeyEncoder.encode("\uD800")).isEqualTo("%ED%A0%80").isNotEqualTo(KeyEncoder.encode("?"));
		assertThat(KeyEncoder.encode("\uDC00")).isNotEqualTo(KeyEncoder.encode("\uD800"));
	}

	@Test
	void hashesLongKeysBehindReadablePrefix() {
		String key = "customer-".repeat(1200);
		String encoded = KeyEncoder.encode(key);
		assertThat(encoded).hasSize(KeyEncoder.HASHED_PREFIX_LENGTH + 1 + 64)
			.startsWith("customer-customer-")
			.matches("[^#]+#[0-9A-F]{64}");
		assertThat(KeyEncoder.encode(key)).isEqualTo(encoded);
		assertThat(KeyEncoder.encode(key + "x")).isNotEqualTo(encoded)
			.startsWith(encoded.substring(0, KeyEncoder.HASHED_PREFIX_LENGTH));
	}

	@Test
	void keepsKeysUpToTheLimitPlain() {
		String key = "k".repeat(KeyEncoder.MAX_PLAIN_LENGTH);
		assertThat(KeyEncoder.encode(key)).isEqualTo(key);
		assertThat(KeyEncoder.encode(key + "k")).contains("#");
	}

	@Test
	void neverCutsAnEscapeInHalf() {
		for (int shift = 0; shift < 3; shift++) {
			String key = "x".repeat(shift) + "/".repeat(200);
			String prefix = KeyEncoder.encode(key).split("#")[0];
			assertThat(prefix).matches("x*(%2F)+");
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "", ".", "..", "../..", "/", "//", "a/b", "/zookeeper/quota", "zookeeper", " ", "%",
			"%2F", "#", "#nokey", "#empty", "\u0000", "\u001f", "\u007f", "\u009f", "\ud800", "\uf8ff", "\ufff0",
			"\uffff", "Grüße", "ключ" })
	void alwaysProducesOneValidPathSegment(String key) {
		String segment = KeyEncoder.encode(key);
		assertThat(segment).isNotEmpty().doesNotContain("/").isNotIn(".", "..");
		assertThat(segment.chars()).allMatch((c) -> c > 0x20 && c < 0x7f);
		assertThatNoException().isThrownBy(() -> PathUtils.validatePath("/locks/" + segment));
	}

	@Test
	void isInjectiveOverAdversarialAndRandomKeys() {
		List<String> keys = new ArrayList<>(List.of("", ".", "..", "%2E", "%2E%2E", "#empty", "#nokey", "%23nokey",
				"a/b", "a%2Fb", "?", "\uD800", "\uDC00", "\uD800\uDC00", "\uD83D\uDE00", "😀"));
		Random random = new Random(42);
		for (int i = 0; i < 20_000; i++) {
			StringBuilder key = new StringBuilder();
			int length = random.nextInt((i % 10 == 0) ? 400 : 12);
			for (int c = 0; c < length; c++) {
				key.append((char) (random.nextBoolean() ? random.nextInt(128) : random.nextInt(0x10000)));
			}
			keys.add(key.toString());
		}
		Map<String, String> seen = new HashMap<>();
		for (String key : keys) {
			String previous = seen.put(KeyEncoder.encode(key), key);
			assertThat(previous).as("collision for %s", key).satisfiesAnyOf((p) -> assertThat(p).isNull(),
					(p) -> assertThat(p).isEqualTo(key));
		}
		assertThat(seen.keySet()).doesNotContain(KeyEncoder.NO_KEY);
	}

	@Test
	void abbreviatesLongKeysForMessages() {
		assertThat(KeyEncoder.abbreviate("short")).isEqualTo("short");
		assertThat(KeyEncoder.abbreviate("x".repeat(10_240))).hasSizeLessThan(100).endsWith("(10240 chars)");
	}

	@Test
	void rejectsNull() {
		assertThatIllegalArgumentException().isThrownBy(() -> KeyEncoder.encode(null));
	}

}
