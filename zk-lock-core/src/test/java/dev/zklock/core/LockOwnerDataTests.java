package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.zklock.LockHandle;
import dev.zklock.LockOwnerData;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each lock node tells who holds it.
 */
class LockOwnerDataTests extends AbstractZooKeeperTests {

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void lockNodeNamesApplicationHostPidAndThread(LockMode mode) throws Exception {
		this.manager.setOwnerData(LockOwnerData.json("billing"));
		String json = nodeDataWhileHeldBy("worker \"7\"", LockRequest.named("invoice").keys("9").mode(mode).build());
		assertThat((String) JsonPath.read(json, "$.app")).isEqualTo("billing");
		assertThat((String) JsonPath.read(json, "$.host")).isNotBlank();
		assertThat(((Number) JsonPath.read(json, "$.pid")).longValue()).isEqualTo(ProcessHandle.current().pid());
		assertThat((String) JsonPath.read(json, "$.thread")).isEqualTo("worker \"7\"");
	}

	@Test
	void applicationNameIsLeftOutWhenUnknown() throws Exception {
		String json = nodeDataWhileHeldBy("plain", LockRequest.named("invoice").keys("10").build());
		assertThat(json).doesNotContain("\"app\"");
		assertThat((String) JsonPath.read(json, "$.thread")).isEqualTo("plain");
	}

	@Test
	void noOwnerDataLeavesTheClientsDefault() throws Exception {
		this.manager.setOwnerData(LockOwnerData.none());
		String data = nodeDataWhileHeldBy("quiet", LockRequest.named("invoice").keys("11").build());
		assertThat(data).doesNotContain("quiet").doesNotStartWith("{");
	}

	@Test
	void jsonEscapesQuotesBackslashesAndControlCharacters() throws Exception {
		String name = "tab\there\\back";
		CompletableFuture<String> json = new CompletableFuture<>();
		new Thread(() -> json.complete(new String(LockOwnerData.json("a\"pp").forCurrentThread(),
				StandardCharsets.UTF_8)), name).start();
		String text = json.get(10, TimeUnit.SECONDS);
		assertThat((String) JsonPath.read(text, "$.thread")).isEqualTo(name);
		assertThat((String) JsonPath.read(text, "$.app")).isEqualTo("a\"pp");
	}

	@Test
	void dataFollowsARenamedThreadAndCannotBeChangedByACaller() throws Exception {
		LockOwnerData ownerData = LockOwnerData.json(null);
		CompletableFuture<List<String>> names = new CompletableFuture<>();
		new Thread(() -> {
			String first = JsonPath.read(new String(ownerData.forCurrentThread(), StandardCharsets.UTF_8), "$.thread");
			byte[] bytes = ownerData.forCurrentThread();
			Arrays.fill(bytes, (byte) 'x');
			String again = JsonPath.read(new String(ownerData.forCurrentThread(), StandardCharsets.UTF_8), "$.thread");
			Thread.currentThread().setName("renamed");
			String renamed = JsonPath.read(new String(ownerData.forCurrentThread(), StandardCharsets.UTF_8),
					"$.thread");
			names.complete(List.of(first, again, renamed));
		}, "original").start();
		assertThat(names.get(10, TimeUnit.SECONDS)).containsExactly("original", "original", "renamed");
	}

	private String nodeDataWhileHeldBy(String threadName, LockRequest request) throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch held = new CountDownLatch(1);
		Thread holder = new Thread(() -> {
			try (LockHandle handle = this.manager.acquire(request)) {
				held.countDown();
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, threadName);
		holder.start();
		try {
			assertThat(held.await(20, TimeUnit.SECONDS)).isTrue();
			List<String> nodes = ephemeralNodes();
			assertThat(nodes).hasSize(1);
			return new String(client.getData().forPath(nodes.get(0)), StandardCharsets.UTF_8);
		}
		finally {
			release.countDown();
			holder.join(TimeUnit.SECONDS.toMillis(20));
		}
	}

}
