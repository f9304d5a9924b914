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
 * Tests for {@link LockPaths}.
 */
class KeyEncoderTests {

	@Test
	void keepsPlainKeysReadable() {
		assertThat(LockPaths.encode("order-42")).isEqualTo("order-42");
		assertThat(LockPaths.encode("Order_42.v2:eu@x=1+2,3~")).isEqualTo("Order_42.v2:eu@x=1+2,3~");
	}

	@Test
	void encodesSlashesDotsAndPercent() {
		assertThat(LockPaths.encode("a/b")).isEqualTo("a%2Fb");
		assertThat(LockPaths.encode("/zookeeper/quota")).isEqualTo("%2Fzookeeper%2Fquota");
		assertThat(LockPaths.encode("../..")).isEqualTo("..%2F..");
		assertThat(LockPaths.encode(".")).isEqualTo("%2E");
		assertThat(LockPaths.encode("..")).isEqualTo("%2E%2E");
		assertThat(LockPaths.encode("...")).isEqualTo("...");
		assertThat(LockPaths.encode("100%")).isEqualTo("100%25");
		assertThat(LockPaths.encode("#nokey")).isEqualTo("%23nokey");
	}

	@Test
	void encodesEmptyKeyToReservedSegment() {
		assertThat(LockPaths.encode("")).isEqualTo(LockPaths.EMPTY_KEY);
	}

	@Test
	void keepsThePublishedWaitsApartFromEveryLockName() {
		LockPaths paths = new LockPaths("/locks/");
		assertThat(paths.waitsPath()).isEqualTo("/locks/" + LockPaths.WAITS);
		assertThat(paths.namePath(LockPaths.WAITS)).isEqualTo("/locks/%23waits").isNotEqualTo(paths.waitsPath());
	}

	@Test
	void encodesUnicodeAsUtf8() {
		assertThat(LockPaths.encode("é")).isEqualTo("%C3%A9");
		assertThat(LockPaths.encode("日本")).isEqualTo("%E6%97%A5%E6%9C%AC");
		assertThat(LockPaths.encode("😀")).isEqualTo("%F0%9F%98%80");
	}

	@Test
	void encodesControlCharacters() {
		assertThat(LockPaths.encode("a\u0000b")).isEqualTo("a%00b");
		assertThat(LockPaths.encode("\t\n\u007f\u0085")).isEqualTo("%09%0A%7F%C2%85");
	}

	@Test
	void keepsLoneSurrogatesDistinctFromQuestionMark() {
		assertThat(LockPaths.encode("\uD800")).isEqualTo("%ED%A0%80").isNotEqualTo(LockPaths.encode("?"));
		assertThat(LockPaths.encode("\uDC00")).isNotEqualTo(LockPaths.encode("\uD800"));
	}

	@Test
	void hashesLongKeysBehindReadablePrefix() {
		String key = "customer-".repeat(1200);
		String encoded = LockPaths.encode(key);
		assertThat(encoded).hasSize(LockPaths.HASHED_PREFIX_LENGTH + 1 + 64)
			.startsWith("customer-customer-")
			.matches("[^#]+#[0-9A-F]{64}");
		assertThat(LockPaths.encode(key)).isEqualTo(encoded);
		assertThat(LockPaths.encode(key + "x")).isNotEqualTo(encoded)
			.startsWith(encoded.substring(0, LockPaths.HASHED_PREFIX_LENGTH));
	}

	@Test
	void keepsKeysUpToTheLimitPlain() {
		String key = "k".repeat(LockPaths.MAX_PLAIN_LENGTH);
		assertThat(LockPaths.encode(key)).isEqualTo(key);
		assertThat(LockPaths.encode(key + "k")).contains("#");
	}

	@Test
	void neverCutsAnEscapeInHalf() {
		for (int shift = 0; shift < 3; shift++) {
			String key = "x".repeat(shift) + "/".repeat(200);
			String prefix = LockPaths.encode(key).split("#")[0];
			assertThat(prefix).matches("x*(%2F)+");
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "", ".", "..", "../..", "/", "//", "a/b", "/zookeeper/quota", "zookeeper", " ", "%",
			"%2F", "#", "#nokey", "#empty", "\u0000", "\u001f", "\u007f", "\u009f", "\ud800", "\uf8ff", "\ufff0",
			"\uffff", "Grüße", "ключ" })
	void alwaysProducesOneValidPathSegment(String key) {
		String segment = LockPaths.encode(key);
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
			String previous = seen.put(LockPaths.encode(key), key);
			assertThat(previous).as("collision for %s", key).satisfiesAnyOf((p) -> assertThat(p).isNull(),
					(p) -> assertThat(p).isEqualTo(key));
		}
		assertThat(seen.keySet()).doesNotContain(LockPaths.NO_KEY);
	}

	@Test
	void abbreviatesLongKeysForMessages() {
		assertThat(LockPaths.abbreviate("short")).isEqualTo("short");
		assertThat(LockPaths.abbreviate("x".repeat(10_240))).hasSizeLessThan(100).endsWith("(10240 chars)");
	}

	@Test
	void rejectsNull() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockPaths.encode(null));
	}

}
