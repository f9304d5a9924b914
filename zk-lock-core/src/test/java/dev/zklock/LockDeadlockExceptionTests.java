package dev.zklock;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.zklock.LockDeadlock.Edge;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The message of a {@link LockDeadlockException}: the docs' example cycle, word for
 * word, and sessions named only where two members share a process.
 */
class LockDeadlockExceptionTests {

	private static final Party HOST_A = new Party("orders", "host-a", 4711, 0x1000a2b3c4d0005L,
			"http-nio-8080-exec-3");

	private static final Party HOST_B = new Party("orders", "host-b", 902, 0x2000a2b3c4d0011L, "worker-2");

	private static final LockRef STOCK = new LockRef("stock", "7", LockMode.MUTEX);

	private static final LockRef ORDERS = new LockRef("orders", "1", LockMode.MUTEX);

	/**
	 * The docs' example: two instances nesting {@code orders:1} and {@code stock:7}
	 * in opposite orders, host-a's wait the newest.
	 */
	static LockDeadlock example() {
		return new LockDeadlock(Instant.parse("2026-12-02T14:03:12.118Z"), HOST_A,
				List.of(new Edge(HOST_A, STOCK, HOST_B, STOCK), new Edge(HOST_B, ORDERS, HOST_A, ORDERS)));
	}

	@Test
	void namesEveryEdgeOfTheDocsExample() {
		LockDeadlockException exception = new LockDeadlockException(example());
		assertThat(exception).isInstanceOf(LockException.class);
		assertThat(exception.getDeadlock()).isEqualTo(example());
		assertThat(exception.getMessage()).isEqualTo("""
				Deadlock detected: this wait for lock 'stock' key '7' (MUTEX) was chosen to end it, as the newest \
				wait of the cycle; its node was removed and the other waits go on.
				  orders@host-a pid 4711 thread 'http-nio-8080-exec-3' waits for 'stock' key '7' (MUTEX)
				  orders@host-b pid 902 thread 'worker-2' holds 'stock' key '7' (MUTEX)
				  orders@host-b pid 902 thread 'worker-2' waits for 'orders' key '1' (MUTEX)
				  orders@host-a pid 4711 thread 'http-nio-8080-exec-3' holds 'orders' key '1' (MUTEX)
				Release the locks this thread still holds (leaving their blocks does) so that the others are \
				granted; take nested locks in one global order to avoid the cycle.""");
	}

	@Test
	void namesTheSessionsOfTwoManagersInOneProcess() {
		Party first = new Party(null, "host-a", 4711, 0x11, "main");
		Party second = new Party(null, "host-a", 4711, 0x12, "worker");
		LockRef nokey = new LockRef("report", null, LockMode.WRITE);
		LockDeadlock deadlock = new LockDeadlock(Instant.EPOCH, second,
				List.of(new Edge(second, nokey, first, nokey), new Edge(first, ORDERS, second, ORDERS)));
		assertThat(deadlock.describe() + "\n").isEqualTo("""
				  host-a pid 4711 session 0x12 thread 'worker' waits for 'report' (WRITE)
				  host-a pid 4711 session 0x11 thread 'main' holds 'report' (WRITE)
				  host-a pid 4711 session 0x11 thread 'main' waits for 'orders' key '1' (MUTEX)
				  host-a pid 4711 session 0x12 thread 'worker' holds 'orders' key '1' (MUTEX)
				""");
		assertThat(new LockDeadlockException(deadlock).getMessage())
			.startsWith("Deadlock detected: this wait for lock 'report' (WRITE) was chosen");
	}

	@Test
	void aDeadlockHasAnEdge() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockDeadlock(Instant.EPOCH, HOST_A, List.of()));
	}

	@Test
	void aWaiterAheadIsSaidToWaitAheadNotToHold() {
		LockRef read = new LockRef("stock", "7", LockMode.READ);
		LockRef write = new LockRef("stock", "7", LockMode.WRITE);
		LockDeadlock deadlock = new LockDeadlock(Instant.EPOCH, HOST_A,
				List.of(new Edge(HOST_A, read, HOST_B, write, true), new Edge(HOST_B, ORDERS, HOST_A, ORDERS)));
		assertThat(deadlock.describe()).contains("""
				  orders@host-a pid 4711 thread 'http-nio-8080-exec-3' waits for 'stock' key '7' (READ)
				  orders@host-b pid 902 thread 'worker-2' waits ahead for 'stock' key '7' (WRITE)
				""");
	}

}
