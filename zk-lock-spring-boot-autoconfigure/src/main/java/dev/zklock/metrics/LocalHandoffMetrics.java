package dev.zklock.metrics;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LocalHandoffs;

/**
 * Counts the grants of locks with local hand-off in {@value #HANDOFFS}, tagged
 * {@code kind}: {@code local} for a key passed from one holder of this process to
 * the next without ZooKeeper, {@code zookeeper} for a grant through ZooKeeper,
 * which starts a tenure. Their ratio is what local hand-off saves. Both are
 * function counters over the engine's own counts, read when the registry
 * publishes: a lock call never touches them, and a failing read or registry is
 * logged, never thrown. The counters refer to this object weakly, as Micrometer
 * does, so keep it referenced (a bean is).
 */
public class LocalHandoffMetrics {

	/**
	 * Counter of grants of locks with local hand-off, tagged {@code kind}.
	 */
	public static final String HANDOFFS = "zk.lock.handoffs";

	private static final Logger logger = LoggerFactory.getLogger(LocalHandoffMetrics.class);

	private final Supplier<? extends Collection<LocalHandoffs>> handoffs;

	private final AtomicBoolean readFailureLogged = new AtomicBoolean();

	/**
	 * Register the two counters.
	 * @param registry where the counters are registered
	 * @param handoffs supplies the local hand-offs of each distinct lock engine, empty
	 * when there is none; called at each publication
	 */
	public LocalHandoffMetrics(MeterRegistry registry, Supplier<? extends Collection<LocalHandoffs>> handoffs) {
		Objects.requireNonNull(registry, "registry must not be null");
		this.handoffs = Objects.requireNonNull(handoffs, "handoffs must not be null");
		register(registry, "local", LocalHandoffs::localHandoffs);
		register(registry, "zookeeper", LocalHandoffs::zooKeeperHandoffs);
	}

	private void register(MeterRegistry registry, String kind, ToLongFunction<LocalHandoffs> count) {
		try {
			FunctionCounter.builder(HANDOFFS, this, (metrics) -> metrics.sum(count))
				.description("Grants of locks with local hand-off: passed within this process, or through ZooKeeper")
				.tag("kind", kind)
				.register(registry);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not register {} with kind '{}'", HANDOFFS, kind, ex);
		}
	}

	private double sum(ToLongFunction<LocalHandoffs> count) {
		try {
			long sum = 0;
			for (LocalHandoffs engine : this.handoffs.get()) {
				sum += count.applyAsLong(engine);
			}
			return sum;
		}
		catch (RuntimeException ex) {
			// once: the registry reads at every publication
			if (this.readFailureLogged.compareAndSet(false, true)) {
				logger.warn("Could not read the local hand-offs for {}", HANDOFFS, ex);
			}
			return Double.NaN;
		}
	}

}
