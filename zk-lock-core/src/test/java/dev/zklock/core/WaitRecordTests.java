package dev.zklock.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The data of a published wait: written and read back unchanged, whatever the
 * names contain; at most {@value WaitRecord#MAX_HOLDS} holds; another version
 * refused, fields of a newer writer ignored.
 */
class WaitRecordTests {

	private static final Instant SINCE = Instant.parse("2026-12-02T14:03:11.402Z");

	@Test
	void writesTheDocumentedLines() {
		WaitRecord record = new WaitRecord(new Party("orders", "host-a", 4711, 0x1000a2b3c4d0005L,
				"http-nio-8080-exec-3"), 57, new LockRef("stock", "7", LockMode.MUTEX), 1, "/locks/stock/7",
				"_c_1-lock-0000000008", false, SINCE,
				List.of(new WaitRecord.Held(new LockRef("orders", "1", LockMode.MUTEX), "/locks/orders/1/lock-3")),
				false);
		assertThat(new String(record.encode(), StandardCharsets.UTF_8)).isEqualTo("""
				zk-lock-wait	1
				app	orders
				host	host-a
				pid	4711
				session	0x1000a2b3c4d0005
				thread	http-nio-8080-exec-3
				threadId	57
				lock	stock
				key	7
				mode	MUTEX
				permits	1
				queue	/locks/stock/7
				node	_c_1-lock-0000000008
				local	false
				since	2026-12-02T14:03:11.402Z
				holds	MUTEX	orders	1	/locks/orders/1/lock-3
				""");
		assertThat(WaitRecord.decode(record.encode())).isEqualTo(record);
	}

	@Test
	void readsBackNamesWithTabsLineBreaksBackslashesAndAbsentValues() {
		WaitRecord record = new WaitRecord(new Party(null, "host\tb", 1, -1L, "worker\n2\\"), 0,
				new LockRef("a\\tb", null, LockMode.SEMAPHORE), 3, "/locks/a%5Ctb/#nokey", "lease-3-0000000001", true,
				SINCE, List.of(new WaitRecord.Held(new LockRef("x\ty", "\\0", LockMode.READ), "/locks/x/y/__READ__1"),
						new WaitRecord.Held(new LockRef("z", null, LockMode.WRITE), "/locks/z/#nokey/__WRIT__2")),
				false);
		WaitRecord read = WaitRecord.decode(record.encode());
		assertThat(read).isEqualTo(record);
		assertThat(read.party().app()).isNull();
		assertThat(read.holds().get(0).lock().key()).as("a key that looks like the absent marker").isEqualTo("\\0");
		assertThat(new String(record.encode(), StandardCharsets.UTF_8)).contains("key\t\\0\n", "host\thost\\tb\n");
	}

	@Test
	void keepsAtMostTheMaximumOfHoldsAndSaysSo() {
		List<WaitRecord.Held> holds = new ArrayList<>();
		for (int i = 0; i < WaitRecord.MAX_HOLDS + 10; i++) {
			holds.add(new WaitRecord.Held(new LockRef("n", Integer.toString(i), LockMode.MUTEX), "/locks/n/" + i + "/x"));
		}
		WaitRecord record = record(holds);
		assertThat(record.holds()).hasSize(WaitRecord.MAX_HOLDS).containsExactlyElementsOf(holds.subList(0, 256));
		assertThat(record.truncated()).isTrue();
		assertThat(WaitRecord.decode(record.encode()).truncated()).isTrue();
		assertThat(record(holds.subList(0, WaitRecord.MAX_HOLDS)).truncated()).isFalse();
	}

	@Test
	void refusesAnotherVersionAndWhatIsNoRecord() {
		String text = new String(record(List.of()).encode(), StandardCharsets.UTF_8);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WaitRecord.decode(text.replace("zk-lock-wait\t1", "zk-lock-wait\t2").getBytes(
					StandardCharsets.UTF_8)))
			.withMessageContaining("version 1");
		assertThatIllegalArgumentException().isThrownBy(() -> WaitRecord.decode(new byte[0]));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WaitRecord.decode("{\"host\":\"a\"}".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void refusesARecordWithoutAFieldOrWithAnUnreadableOne() {
		String text = new String(record(List.of()).encode(), StandardCharsets.UTF_8);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WaitRecord.decode(text.replace("queue\t/locks/n/k\n", "").getBytes(StandardCharsets.UTF_8)))
			.withMessageContaining("queue");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WaitRecord.decode(text.replace("pid\t7", "pid\tseven").getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void ignoresFieldsItDoesNotKnow() {
		WaitRecord record = record(List.of());
		String newer = new String(record.encode(), StandardCharsets.UTF_8) + "priority\thigh\nholds\tmore\tfields\n";
		assertThat(WaitRecord.decode(newer.getBytes(StandardCharsets.UTF_8))).isEqualTo(record);
	}

	private static WaitRecord record(List<WaitRecord.Held> holds) {
		return new WaitRecord(new Party("app", "host", 7, 1, "main"), 1, new LockRef("n", "k", LockMode.MUTEX), 1,
				"/locks/n/k", "lock-0000000002", false, SINCE, holds, false);
	}

}
