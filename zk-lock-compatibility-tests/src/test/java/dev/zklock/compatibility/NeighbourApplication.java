package dev.zklock.compatibility;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service with zk-lock and Spring Cloud Zookeeper discovery, as a user writes it.
 */
@SpringBootApplication
public class NeighbourApplication {

}
