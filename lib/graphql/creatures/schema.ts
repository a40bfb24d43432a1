/**
 * The creature API's schema. Every type, field, argument and enum value has a description: GraphiQL's
 * docs panel shows them, and a unit test fails on any that is missing. To add a query or mutation, add
 * one line to `type Query` / `type Mutation` here and one function of the same name in resolvers.ts
 * (startup fails until both exist).
 */
import { MAX_PAGE_SIZE } from './catalog.js';
import { MESSAGE_LIMITS } from './messages.js';

export const typeDefs = /* GraphQL */ `
  """
  Read the invented creature catalog and the message board.
  """
  type Query {
    """
    Creatures in number order. With no arguments: every creature (at most ${MAX_PAGE_SIZE} per request).
    """
    creatures(
      "How many creatures to return. Values above ${MAX_PAGE_SIZE} are reduced to ${MAX_PAGE_SIZE}; absent means ${MAX_PAGE_SIZE}."
      first: Int
      "Return the creatures after this one: pass the id of the last creature of the previous page."
      after: String
      "Only creatures of this type, primary or secondary, case-insensitive (for example \\"ember\\")."
      type: String
    ): [Creature!]!

    """
    One creature by name (case-insensitive, surrounding spaces ignored), id or number.
    Null when none matches, or when the given arguments name different creatures.
    """
    creature(
      "The creature's name, for example \\"Cindlet\\"; letter case does not matter."
      name: String
      "The creature's opaque id, as returned in Creature.id."
      id: ID
      "The creature's number, for example \\"001\\" (\\"1\\" works too)."
      number: String
    ): Creature

    """
    A message by id. An unknown id is an error: "no message exists with id <id>".
    """
    getMessage("The id createMessage returned." id: ID!): Message
  }

  """
  Write to the message board.
  """
  type Mutation {
    """
    Stores a new message and returns it with its new random id. A missing input stores an empty message.
    """
    createMessage("The message's content and author." input: MessageInput): Message

    """
    Replaces a message's content and author wholesale: a field left out becomes null.
    An unknown id is an error: "no message exists with id <id>".
    """
    updateMessage(
      "The id of the message to replace."
      id: ID!
      "The new content and author."
      input: MessageInput
    ): Message
  }

  """
  An invented creature: its types, size, stats, attacks and evolution chain.
  """
  type Creature {
    "Opaque, stable identifier; use it with creature(id:) or as creatures(after:)."
    id: ID!
    "Catalog number, zero-padded to three digits (\\"001\\" to \\"150\\")."
    number: String!
    "Unique name."
    name: String!
    "A short description of its kind, for example \\"Hearth Creature\\"."
    classification: String!
    "One or two types; the first is its primary type."
    types: [String!]!
    "Attacking types that deal less than normal damage to it, from the type chart."
    resistant: [String!]!
    "Attacking types that deal more than normal damage to it, from the type chart."
    weaknesses: [String!]!
    "The range of weights of grown specimens, in kilograms."
    weight: CreatureDimension!
    "The range of heights of grown specimens, in metres."
    height: CreatureDimension!
    "Chance (0 to 1) that it flees an encounter."
    fleeRate: Float!
    "Highest combat power it can reach."
    maxCP: Int!
    "Highest hit points it can reach."
    maxHP: Int!
    "Its fast and special attacks."
    attacks: CreatureAttacks!
    "All later stages of its evolution chain, in chain order; empty for a final form."
    evolutions: [Creature!]!
    "What its next evolution costs; null when it cannot evolve further."
    evolutionRequirements: EvolutionRequirement
    "All earlier stages of its evolution chain, first stage first; empty for a first stage."
    previousEvolutions: [Creature!]!
    "How rare it is."
    rarity: Rarity!
  }

  """
  A measured range, as text with its unit and as numbers.
  """
  type CreatureDimension {
    "Lower bound with its unit, for example \\"6.50kg\\"."
    minimum: String!
    "Upper bound with its unit, for example \\"8.36kg\\"."
    maximum: String!
    "Lower bound as a number, in unit."
    minimumValue: Float!
    "Upper bound as a number, in unit."
    maximumValue: Float!
    "The unit of the values: \\"kg\\" or \\"m\\"."
    unit: String!
  }

  """
  A creature's attacks.
  """
  type CreatureAttacks {
    "Quick attacks with low damage."
    fast: [Attack!]!
    "Charged attacks with high damage."
    special: [Attack!]!
  }

  """
  One attack.
  """
  type Attack {
    "The attack's name."
    name: String!
    "The attack's type, which the type chart compares with the defender's types."
    type: String!
    "Base damage."
    damage: Int!
  }

  """
  The cost of a creature's next evolution.
  """
  type EvolutionRequirement {
    "How many are needed."
    amount: Int!
    "What is needed, for example \\"Cindlet shards\\"."
    name: String!
  }

  """
  How rare a creature is.
  """
  enum Rarity {
    "Found in the wild, usually part of an evolution chain."
    COMMON
    "One of a kind, very strong."
    LEGENDARY
    "Rarer than legendary; almost never seen."
    MYTHIC
  }

  """
  A message on the board.
  """
  type Message {
    "Random identifier (20 hex characters)."
    id: ID!
    "The text of the message."
    content: String
    "Who wrote it."
    author: String
  }

  """
  The content and author of a message; both optional.
  """
  input MessageInput {
    "The text of the message (at most ${MESSAGE_LIMITS.content} characters)."
    content: String
    "Who wrote it (at most ${MESSAGE_LIMITS.author} characters)."
    author: String
  }
`;
