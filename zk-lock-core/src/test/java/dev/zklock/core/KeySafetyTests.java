package dev.zklock.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.zklock.LockHandle;
import dev.zklock.LockKeyException;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys and names are data: whatever they contain, nothing is created outside the
 * base path.
 */
class KeySafetyTests extends AbstractZooKeeperTests {

	static Stream<Arguments> hostileKeys() {
		List<String> keys = List.of("../..", "/zookeeper/quota", "/zookeeper", "zookeeper", "a/b", "/", "//", ".",
				"..", "...", "x".repeat(10_240), "ключ/日本/😀", "\u0000", "\u0001\n\t\u007f\u0085", "\ud800",
				"%2F..%2F..", "#nokey", "#empty");
		return Stream.of(LockMode.values()).flatMap((mode) -> keys.stream().map((key) -> Arguments.of(mode, key)));
	}

	@AfterEach
	void deleteLockTree() throws Exception {
		client.delete().quietly().deletingChildrenIfNeeded().forPath(this.basePath);
	}

	@ParameterizedTest
	@MethodSource("hostileKeys")
	void createsNothingOutsideBasePath(LockMode mode, String key) throws Exception {
		Set<String> before = new HashSet<>(ZooKeeperTestSupport.tree(client, "/"));
		for (String name : List.of("safe", "../..", "/zookeeper/quota")) {
			LockRequest request = LockRequest.named(name).keys(key).mode(mode).timeout(Duration.ofSeconds(10)).build();
			try (LockHandle handle = this.manager.acquire(request)) {
				assertThat(handle.isAcquired()).isTrue();
				assertThat(ZKPaths.getPathAndNode(ZKPaths.getPathAndNode(this.manager.pathFor(name, key)).getPath())
					.getPath()).isEqualTo(this.basePath);
				assertNothingOutsideBasePath(before);
				assertThat(ephemeralNodes()).isNotEmpty()
					.allSatisfy((node) -> assertThat(node).startsWith(this.manager.pathFor(name, key) + "/"));
			}
			assertNothingOutsideBasePath(before);
		}
		assertThat(ephemeralNodes()).isEmpty();
		assertThat(client.getChildren().forPath("/zookeeper")).containsExactlyInAnyOrderElementsOf(
				before.stream().filter((path) -> path.startsWith("/zookeeper/") && path.indexOf('/', 11) < 0)
					.map((path) -> path.substring(11))
					.toList());
	}

	@Test
	void distinctHostileKeysAreDistinctLocks() throws Exception {
		try (LockHandle dots = this.manager.acquire(LockRequest.named("n").keys("..").build())) {
			assertThat(acquireInOtherThread(LockRequest.named("n").keys(".").timeout(Duration.ZERO).build())).isTrue();
			assertThat(acquireInOtherThread(LockRequest.named("n").keys("%2E%2E").timeout(Duration.ZERO).build()))
				.isTrue();
			assertThat(acquireInOtherThread(LockRequest.named("n").keys("..").timeout(Duration.ZERO).build())).isFalse();
		}
	}

	@Test
	void rejectsNullAndBlankKeys() {
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> LockRequest.named("n").keys((String) null).build())
			.withMessageContaining("'n'");
		assertThatExceptionOfType(LockKeyException.class)
			.isThrownBy(() -> LockRequest.named("n").keys(Arrays.asList("a", null)).build());
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> LockRequest.named("n").keys(" ").build());
	}

	private void assertNothingOutsideBasePath(Set<String> before) throws Exception {
		assertThat(ZooKeeperTestSupport.tree(client, "/"))
			.allSatisfy((path) -> assertThat(before.contains(path) || path.equals(this.basePath)
					|| path.startsWith(this.basePath + "/"))
				.as("%s is outside %s", path, this.basePath)
				.isTrue());
	}

}
